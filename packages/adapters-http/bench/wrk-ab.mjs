// Two servers side by side under wrk (Debian's `wrk`), for the A/B labs: this package's ab-requests.mjs (two
// builds of its dist) and apps/api's ab-bundles.mjs (two bundles of the service). Each round loads A then B,
// or B then A in the next round, for each request kind; the report gives, per side and kind, the server's CPU
// time per request (the figure a shared machine disturbs least) and wrk's requests per second: the median of
// the rounds with their range, and B against A as the median of the rounds' own ratios.
// A run has a bias of its own that its rounds share: the same build on both sides (ab-requests.mjs, list 20,
// 10 rounds, 2026-11-28) gave CPU B/A x1.034 with 9 rounds of 10 above 1, then x0.962 with 9 of 10 below.
// Rounds that agree do not make a difference real: judge a difference of a few percent from several runs, the
// sides swapped (--a and --b) in some of them. Pinned (the lab and its servers on CPU 0 by `taskset -c 0`, wrk
// on CPU 1), the same build gave x1.043, x1.033 and x1.041 in three runs; with V8's --hash-seed and
// --random-seed fixed in both servers and ASLR off (`setarch -R`) as well, x0.998 and x0.982: much of a run's
// bias is its processes' own draw (hash seeds, addresses), which new processes draw again. `--steady=1` (below)
// under `setarch -R` takes that way: the same build x0.977, x1.003, x1.024 in three runs of 8 rounds (±2.5 %
// against ±4 %); still judge from several runs.
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The value of `--name=value` among the arguments, else `fallback`. */
export const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback

/** The body of each create. */
export const BODY = '{"name":"Rex","categoryId":1}'

/** The request kinds: a path, and the Lua script that makes wrk's requests, if any. */
export const KINDS = {
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

const run = (file, args) =>
  new Promise((ok, fail) => execFile(file, args, (error, stdout) => (error ? fail(error) : ok(stdout))))

/**
 * `--steady=1`: each server on CPU 0 (`steadyServer`, with `STEADY_NODE_FLAGS`), wrk on CPU 1, so that neither
 * side draws its place on the cores, nor its hash and random seeds, anew; run the lab under `setarch -R` too for
 * the same addresses (ASLR off). Linux's `taskset` (util-linux).
 */
export const STEADY = option('steady', '') === '1'
/** The node flags of a server process under `--steady=1`: V8's hash and random seeds fixed. */
export const STEADY_NODE_FLAGS = STEADY ? ['--hash-seed=7', '--random-seed=7'] : []
/** Puts a server process on CPU 0 under `--steady=1`. */
export const steadyServer = async (pid) => {
  if (STEADY) await run('taskset', ['-p', '-c', '0', String(pid)])
}

const wrk = (args) => (STEADY ? run('taskset', ['-c', '1', 'wrk', ...args]) : run('wrk', args))

// One load of `seconds` on a server ({ port, cpuUs }): its CPU µs per request and wrk's requests per second.
const load = async (server, key, kind, seconds, connections) => {
  const { path, script } = KINDS[kind]
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-H', `Authorization: Bearer ${key}`]
  if (script !== undefined) {
    const file = join(tmpdir(), `wrk-ab-${process.pid}-${kind.replace(/\W/g, '')}.lua`)
    writeFileSync(file, script)
    args.push('-s', file)
  }
  const before = await server.cpuUs()
  const out = await wrk([...args, `http://127.0.0.1:${server.port}${path}`])
  const after = await server.cpuUs()
  const requests = Number(/(\d+) requests in/.exec(out)?.[1])
  if (/Non-2xx or 3xx responses/.test(out) || !(requests > 0)) throw new Error(`wrk: ${out}`)
  return { cpu: (after - before) / requests, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]) }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const range = (xs, digits) =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`

/**
 * Loads `servers.A` and `servers.B` (each `{ port, cpuUs(): Promise<number> | number, stop() }`, serving the
 * memory store with `key` and seeded pets) in alternating rounds, then stops them and prints the report.
 * Options from the arguments: --rounds=6, --seconds=4 per load, --connections=16, --kinds (all of `kinds`).
 */
export const compareSides = async ({ labels, servers, key, kinds = Object.keys(KINDS) }) => {
  const rounds = Number(option('rounds', 6))
  const seconds = Number(option('seconds', 4))
  const connections = Number(option('connections', 16))
  const chosen = option('kinds', kinds.join(',')).split(',')
  const runs = {}
  for (const kind of chosen) {
    runs[kind] = { A: [], B: [] }
    for (const side of ['A', 'B']) await load(servers[side], key, kind, 1, connections) // warm-up
  }
  for (let round = 0; round < rounds; round++)
    for (const kind of chosen)
      for (const side of round % 2 === 0 ? ['A', 'B'] : ['B', 'A'])
        runs[kind][side].push(await load(servers[side], key, kind, seconds, connections))
  for (const server of Object.values(servers)) server.stop()

  console.log(`A: ${labels.A}\nB: ${labels.B}`)
  console.log(
    `${rounds} rounds of ${seconds} s per side and kind, wrk -t1 -c${connections}, node ${process.version}`,
  )
  const cpu = (r) => r.cpu
  const rps = (r) => r.rps
  for (const [kind, { A, B }] of Object.entries(runs)) {
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
}
