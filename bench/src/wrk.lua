-- The request of one scenario for wrk, and a report of the run as one JSON line (see load.ts).
-- Told by the environment: WRK_METHOD, WRK_BODY (may be empty), WRK_STATUS (the only status expected).
wrk.method = os.getenv("WRK_METHOD")
local body = os.getenv("WRK_BODY")
if body ~= nil and body ~= "" then wrk.body = body end
local expected = tonumber(os.getenv("WRK_STATUS"))

local threads = {}
function setup(thread) table.insert(threads, thread) end

-- Per thread (wrk copies this script into each): how many responses had which unexpected status.
unexpected = {}
function response(status)
  if status ~= expected then unexpected[status] = (unexpected[status] or 0) + 1 end
end

function done(summary, latency)
  local statuses = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("unexpected")) do
      statuses[#statuses + 1] = string.format('"%d":%d', status, count)
    end
  end
  local e = summary.errors
  io.write(string.format(
    '\nWRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":{"connect":%d,"read":%d,' ..
      '"write":%d,"status":%d,"timeout":%d},"unexpected":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout, table.concat(statuses, ",")))
end
