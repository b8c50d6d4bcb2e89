// Two builds of this package side by side over HTTP, driven by wrk (Debian's `wrk`): GET
// /v1/pets?limit=20, POST /v1/pets and the pages of a walk (`after` new on each) on the in-memory
// store, no log. Not a test: it asserts nothing and no test runner picks it up. Build each side
// first, then run it, for instance:
//   node packages/adapters-http/bench/ab-requests.mjs --a=/tmp/before/dist --b=packages/adapters-http/dist
// (`--b` is this package's dist unless given). Both servers run for the whole run, each in a child
// process, so that its CPU time is its own; each round loads A then B, or B then A in the next
// round, for each request kind. It prints, per side and kind, the server's CPU time per request
// (the figure that a shared machine disturbs least) and wrk's requests per second: the median of
// the rounds with their range, and B against A as the median of the rounds' own ratios.
// Options: --rounds=6, --seconds=4 per load, --connections=16, --kinds=list 20,create,pages (all).
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { forkMemoryApp, serveMemoryApp } from './serve-memory-app.mjs'

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const KEY = 'k'.repeat(40)
const BODY = '{"name":"Rex","categoryId":1}'

const serve = (dist) => serveMemoryApp({ dist, key: KEY, seeded: 100 })

const startServer = (dist) => forkMemoryApp(import.meta.url, dist)

const wrk = (args) =>
  new Promise((ok, fail) => execFile('wrk', args, (error, stdout) => (error ? fail(error) : ok(stdout))))

const KINDS = {
  'list 20': { path: '/v1/pets?limit=20', script: undefined },
  create: {
    path: '/v1/pets',
    script: `wrk.method = "POST"\nwrk.body = '${BODY}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  },
  // A walk's next pages: `after` differs on every request, so that no query's decoding is reused (the
  // router keeps the last 256); past the 100 pets seeded a page is empty, and the query is most of the work.
  pages: {
    path: '/v1/pets?limit=20&after=0',
    script:
      'local n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format(nil, "/v1/pets?limit=20&after=" .. n)\nend\n',
  },
}

// One load of `seconds` on a server: its CPU µs per request and wrk's requests per second.
const load = async (server, kind, seconds, connections) => {
  const { path, script } = KINDS[kind]
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-H', `Authorization: Bearer ${KEY}`]
  if (script !== undefined) {
    const file = join(tmpdir(), `ab-requests-${process.pid}-${kind.replace(/\W/g, '')}.lua`)
    writeFileSync(file, script)
    args.push('-s', file)
  }
  const before = await server.cpuUs()
  const out = await wrk([...args, `http://127.0.0.1:${server.port}${path}`])
  const after = await server.cpuUs()
  const requests = Number(/(\d+) requests in/.exec(out)?.[1])
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)
  if (errors !== null || !(requests > 0)) throw new Error(`wrk: ${out}`)
  return { cpu: (after - before) / requests, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]) }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

const compare = async () => {
  const rounds = Number(option('rounds', 6))
  const seconds = Number(option('seconds', 4))
  const connections = Number(option('connections', 16))
  const sides = {
    A: resolve(option('a', '')),
    B: resolve(option('b', new URL('../dist', import.meta.url).pathname)),
  }
  const servers = { A: await startServer(sides.A), B: await startServer(sides.B) }
  const kinds = option('kinds', Object.keys(KINDS).join(',')).split(',')
  const runs = {}
  for (const kind of kinds) {
    runs[kind] = { A: [], B: [] }
    for (const side of ['A', 'B']) await load(servers[side], kind, 1, connections) // warm-up
  }
  for (let round = 0; round < rounds; round++)
    for (const kind of kinds)
      for (const side of round % 2 === 0 ? ['A', 'B'] : ['B', 'A'])
        runs[kind][side].push(await load(servers[side], kind, seconds, connections))
  for (const server of Object.values(servers)) server.stop()

  console.log(`A: ${sides.A}\nB: ${sides.B}`)
  console.log(
    `${rounds} rounds of ${seconds} s per side and kind, wrk -t1 -c${connections}, node ${process.version}`,
  )
  const range = (xs, digits) =>
    `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`
  for (const [kind, { A, B }] of Object.entries(runs)) {
    const cpuRatio = median(A.map((a, i) => B[i].cpu / a.cpu))
    const rpsRatio = median(A.map((a, i) => B[i].rps / a.rps))
    console.log(`\n${kind}`)
    console.log(
      `  server CPU µs/request  A ${range(
        A.map((r) => r.cpu),
        1,
      )}  B ${range(
        B.map((r) => r.cpu),
        1,
      )}  B/A ×${cpuRatio.toFixed(3)}`,
    )
    console.log(
      `  requests/s             A ${range(
        A.map((r) => r.rps),
        0,
      )}  B ${range(
        B.map((r) => r.rps),
        0,
      )}  B/A ×${rpsRatio.toFixed(3)}`,
    )
    console.log(`  B/A CPU per round: ${A.map((a, i) => (B[i].cpu / a.cpu).toFixed(3)).join(' ')}`)
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3])
else await compare()
