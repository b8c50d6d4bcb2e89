// Two bundles of the service side by side over HTTP, driven by wrk: GET /v1/pets?limit=20 and POST /v1/pets on
// the memory store, each at its shipped log level (info) to /dev/null. For what the bundle itself does (its
// build: scripts/bundle.mjs, its edits: scripts/lazy-requires.mjs), where adapters-http's ab-requests.mjs takes
// that package's dist. Both run for the whole run, each in a process of its own; each round loads A then B, or
// B then A in the next, for each kind. It prints, per side and kind, the server's CPU time per request (from
// /proc/PID/stat: the figure a shared machine disturbs least) and wrk's requests per second, the median of the
// rounds with their range, and B against A as the median of the rounds' own ratios. Not a test. Build, then:
//   node apps/api/bench/ab-bundles.mjs --a=/tmp/before/dist/bin/animal-store.mjs [--b=this checkout's]
// Options: --rounds=6, --seconds=4 per load, --connections=16, --port=18510 (A; B the next).
import { execFile, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout } from 'node:timers'

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const KEY = 'bench-key-0123456789abcdef0123456789'
const BODY = '{"name":"Rex","categoryId":1}'
const KINDS = {
  'list 20': { path: '/v1/pets?limit=20', script: undefined },
  create: {
    path: '/v1/pets',
    script: `wrk.method = "POST"\nwrk.body = '${BODY}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  },
}
// utime + stime of a process, in clock ticks (USER_HZ, 100 on Linux): 10,000 µs each.
const cpuUs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}
const wrk = (args) =>
  new Promise((ok, fail) => execFile('wrk', args, (error, stdout) => (error ? fail(error) : ok(stdout))))

const startService = async (bundle, port) => {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    STORAGE: 'memory',
    API_KEYS: `bench:${KEY}`,
  }
  const child = spawn(process.execPath, [bundle], { env, stdio: 'ignore' })
  for (;;) {
    const up = await globalThis.fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    )
    if (up) break
    await new Promise((done) => setTimeout(done, 50))
  }
  // 100 pets, so that a list 20 has a page to answer.
  for (let i = 0; i < 100; i++)
    await globalThis.fetch(`http://127.0.0.1:${port}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: BODY,
    })
  return { port, pid: child.pid, stop: () => child.kill() }
}

const load = async (server, kind, seconds, connections) => {
  const { path, script } = KINDS[kind]
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-H', `Authorization: Bearer ${KEY}`]
  if (script !== undefined) {
    const file = join(tmpdir(), `ab-bundles-${process.pid}-${kind.replace(/\W/g, '')}.lua`)
    writeFileSync(file, script)
    args.push('-s', file)
  }
  const before = cpuUs(server.pid)
  const out = await wrk([...args, `http://127.0.0.1:${server.port}${path}`])
  const after = cpuUs(server.pid)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1])
  if (/Non-2xx or 3xx responses/.test(out) || !(requests > 0)) throw new Error(`wrk: ${out}`)
  return { cpu: (after - before) / requests, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]) }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const range = (xs, digits) =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`

const rounds = Number(option('rounds', 6))
const seconds = Number(option('seconds', 4))
const connections = Number(option('connections', 16))
const port = Number(option('port', 18510))
const sides = {
  A: resolve(option('a', '')),
  B: resolve(option('b', new URL('../dist/bin/animal-store.mjs', import.meta.url).pathname)),
}
const servers = { A: await startService(sides.A, port), B: await startService(sides.B, port + 1) }
const runs = {}
for (const kind of Object.keys(KINDS)) {
  runs[kind] = { A: [], B: [] }
  for (const side of ['A', 'B']) await load(servers[side], kind, 1, connections) // warm-up
}
for (let round = 0; round < rounds; round++)
  for (const kind of Object.keys(KINDS))
    for (const side of round % 2 === 0 ? ['A', 'B'] : ['B', 'A'])
      runs[kind][side].push(await load(servers[side], kind, seconds, connections))
for (const server of Object.values(servers)) server.stop()

console.log(`A: ${sides.A}\nB: ${sides.B}`)
console.log(
  `${rounds} rounds of ${seconds} s per side and kind, wrk -t1 -c${connections}, node ${process.version}`,
)
for (const [kind, { A, B }] of Object.entries(runs)) {
  const cpu = (r) => r.cpu
  const rps = (r) => r.rps
  console.log(`\n${kind}`)
  console.log(
    `  server CPU µs/request  A ${range(A.map(cpu), 1)}  B ${range(B.map(cpu), 1)}  ` +
      `B/A ×${median(A.map((a, i) => B[i].cpu / a.cpu)).toFixed(3)}`,
  )
  console.log(
    `  requests/s             A ${range(A.map(rps), 0)}  B ${range(B.map(rps), 0)}  ` +
      `B/A ×${median(A.map((a, i) => B[i].rps / a.rps)).toFixed(3)}`,
  )
  console.log(`  B/A CPU per round: ${A.map((a, i) => (B[i].cpu / a.cpu).toFixed(3)).join(' ')}`)
}
