-- A stranger's flood for wrk: GET of its URL with a random bearer key each time, each connection
-- waiting 150 to 250 ms after an answer (as independent clients would); a report of the statuses
-- as one JSON line (see run-flood.ts).
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

local threads = {}
function setup(thread) table.insert(threads, thread) end

function init() math.randomseed(os.time() + math.floor(os.clock() * 1e6)) end

function request()
  local key = {}
  for i = 1, 24 do
    local at = math.random(1, #alphabet)
    key[i] = alphabet:sub(at, at)
  end
  return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. table.concat(key) })
end

function delay() return math.random(150, 250) end

statuses = {}
function response(status) statuses[status] = (statuses[status] or 0) + 1 end

function done(summary)
  local all = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do all[status] = (all[status] or 0) + count end
  end
  local parts = {}
  for status, count in pairs(all) do parts[#parts + 1] = string.format('"%d":%d', status, count) end
  io.write(string.format('\nFLOOD_RESULT {"requests":%d,"statuses":{%s}}\n', summary.requests, table.concat(parts, ",")))
end
