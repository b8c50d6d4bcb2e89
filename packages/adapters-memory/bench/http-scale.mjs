// The in-memory store at scale, over HTTP: the service's bundle (apps/api/dist/bin/animal-store.mjs, no
// DATABASE_URL, logging at info to /dev/null as the benchmark runs it) filled by wrk with
// `POST /v1/pets`, each request with an Idempotency-Key of its own, as fast as it answers (64 connections);
// at each checkpoint, the fill's latency (wrk: p50, p99, max), the server's GC pauses during it
// (gc-recorder.mjs), its RSS, then 3 s of `GET /v1/pets?limit=20` and its p99. Not a test: it asserts
// nothing and no test runner picks it up. Build apps/api first; to compare two builds, copy one's dist:
//   node packages/adapters-memory/bench/http-scale.mjs --a=/tmp/before/dist/bin/animal-store.mjs [--b=…]
// (--a is this worktree's bundle unless given). Each round starts every side fresh, A then B, then B then
// A. Options: --rounds=2, --pets=100000,500000,1000000, --connections=64, --port=18310 (and the next one).
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { alternateAndReport, option, quantile } from './lab-report.mjs'

const RECORDER = fileURLToPath(new URL('gc-recorder.mjs', import.meta.url))
const KEY = randomBytes(24).toString('base64url')
const BODY = '{"name":"Rex","categoryId":7,"status":"pending"}'

const rssOf = (pid, field) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) /
  1024

// wrk until `count` responses (the script says so on stdout, then wrk gets SIGINT and reports), or for
// `seconds`; any response not 2xx makes the run invalid.
const wrk = (url, lua, { count = 0, seconds = 3600 }, connections) =>
  new Promise((ok, fail) => {
    const script = join(tmpdir(), `http-scale-${process.pid}.lua`)
    writeFileSync(
      script,
      `${lua}
local got, stopAt, bad = 0, ${count}, 0
response = function(status, headers, body)
  got = got + 1
  if status >= 300 then bad = bad + 1 end
  if got == stopAt then io.write("REACHED\\n"); io.stdout:flush(); wrk.thread:stop() end
end
done = function(s, l)
  io.write(string.format("RESULT %d %d %d %d %d %d\\n", s.requests, s.duration, l:percentile(50), l:percentile(99), l.max, bad))
end
`,
    )
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, url]
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('REACHED')) child.kill('SIGINT')
    })
    child.once('exit', () => {
      rmSync(script, { force: true })
      const m = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out)
      if (m === null) return fail(new Error(`wrk: ${out}`))
      const [requests, us, p50, p99, max, bad] = m.slice(1).map(Number)
      if (bad > 0) return fail(new Error(`${bad} responses were not 2xx`))
      ok({ requests, perSecond: requests / (us / 1e6), p50: p50 / 1000, p99: p99 / 1000, max: max / 1000 })
    })
  })

const pausesBetween = (file, from, to) => {
  const ms = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.split(' ').map(Number))
        .filter(([at]) => at >= from && at <= to)
        .map(([, , pause]) => pause)
        .sort((x, y) => x - y)
    : []
  return {
    count: ms.length,
    p99: quantile(ms, 0.99),
    max: quantile(ms, 1),
    total: ms.reduce((s, x) => s + x, 0),
  }
}

const runSide = async (bin, port, checkpoints, connections) => {
  const gcFile = join(tmpdir(), `http-scale-gc-${process.pid}-${port}.txt`)
  rmSync(gcFile, { force: true })
  const env = {
    PATH: process.env.PATH ?? '',
    API_KEYS: KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    GC_RECORD: gcFile,
  }
  const server = spawn(process.execPath, ['--import', RECORDER, bin], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (i > 500) throw new Error('the service did not start')
    const up = await new Promise((ok) =>
      get(`${url}/healthz`, (res) => ok(res.resume().statusCode === 200)).once('error', () => ok(false)),
    )
    if (up) break
    await sleep(20)
  }
  const prefix = randomBytes(6).toString('hex')
  const create = `wrk.method = "POST"
wrk.body = '${BODY}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${KEY}"
local n = 0
request = function()
  n = n + 1
  wrk.headers["Idempotency-Key"] = "${prefix}-" .. n .. "-soak-key-of-a-client"
  return wrk.format()
end`
  const list = `wrk.headers["Authorization"] = "Bearer ${KEY}"\nwrk.path = "/v1/pets?limit=20"`
  const results = []
  let made = 0
  try {
    for (const target of checkpoints) {
      const from = Date.now()
      const fill = await wrk(
        `${url}/v1/pets`,
        create.replace(`"${prefix}-"`, `"${prefix}-${made}-"`),
        { count: target - made },
        connections,
      )
      const to = Date.now()
      made = target
      const rssMiB = rssOf(server.pid, 'VmRSS')
      const listFrom = Date.now()
      const listing = await wrk(`${url}/v1/pets?limit=20`, list, { seconds: 3 }, connections)
      results.push({ pets: made, fill, rssMiB, listing, from, to, listFrom, listTo: Date.now() })
    }
    await sleep(500)
    return results.map((r) => ({
      ...r,
      gc: pausesBetween(gcFile, r.from, r.to),
      listGc: pausesBetween(gcFile, r.listFrom, r.listTo),
      peakRssMiB: undefined,
    }))
  } finally {
    server.kill('SIGTERM')
    rmSync(gcFile, { force: true })
  }
}

const main = async () => {
  const a = option(
    'a',
    fileURLToPath(new URL('../../../apps/api/dist/bin/animal-store.mjs', import.meta.url)),
  )
  const b = option('b', undefined)
  const rounds = Number(option('rounds', '2'))
  const checkpoints = option('pets', '100000,500000,1000000').split(',').map(Number)
  const connections = Number(option('connections', '64'))
  const port = Number(option('port', '18310'))
  const sides = b === undefined ? { A: a } : { A: a, B: b }
  const rows = [
    ['creates/s', (r) => r.fill.perSecond, 0],
    ['create p50 ms', (r) => r.fill.p50, 2],
    ['create p99 ms', (r) => r.fill.p99, 1],
    ['create max ms', (r) => r.fill.max, 0],
    ['GC pauses in the fill', (r) => r.gc.count, 0],
    ['GC pause p99 ms', (r) => r.gc.p99, 1],
    ['GC pause max ms', (r) => r.gc.max, 1],
    ['GC pauses total ms', (r) => r.gc.total, 0],
    ['RSS MiB', (r) => r.rssMiB, 0],
    ['list 20 requests/s', (r) => r.listing.perSecond, 0],
    ['list 20 p99 ms', (r) => r.listing.p99, 2],
    ['GC pause max ms, list 20', (r) => r.listGc.max, 1],
  ]
  await alternateAndReport({
    sides,
    rounds,
    checkpoints,
    run: (bin, i) => runSide(bin, port + i, checkpoints, connections),
    said: (end) => `create p99 ${end.fill.p99} ms, GC max ${end.gc.max.toFixed(1)} ms`,
    rows,
  })
}

await main()
