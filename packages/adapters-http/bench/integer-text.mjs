// What the integer-text check of createPet (src/integer-text.ts) costs, beside what a create costs.
// Not a test: it asserts nothing and no test runner picks it up. Build first, then run it:
//   pnpm --filter @pets/adapters-http run build && node packages/adapters-http/bench/integer-text.mjs
// It prints the check's time per body (a tight loop), the server's CPU time per POST /v1/pets over
// HTTP (in-memory store, no log: the cheapest create there is), and the one as a share of the other.
// Then the server's CPU per POST of 64 KiB bodies, in the same server: ordinary ones and hostile
// ones (long runs of zeros, spaces or digits, where a regex would backtrack), each hostile one as a
// multiple of the ordinary ones (issue 25): it must cost no more than they do, give or take the
// linear pass that checks its numbers. `--posts=N` sets how many of each are timed per run
// (1,000): the code before issue 25 took seconds per body of zeros.
import { Buffer } from 'node:buffer'
import { fork } from 'node:child_process'
import { Agent, request } from 'node:http'
import { serveMemoryApp } from './serve-memory-app.mjs'

const KEY = 'k'.repeat(40)
const BODIES = [
  '{"name":"Rex","categoryId":1}',
  '{"name":"A long name for a pet: 1.5 kg of \\"cat\\"","categoryId":9007199254740991,"status":"pending"}',
]
// A body of exactly 64 KiB, the most the service reads: `fill` repeated between `start` and `end`.
const LIMIT = 64 * 1024
const padded = (start, fill, end) => start + fill.repeat(LIMIT - start.length - end.length) + end
// Ordinary bodies first, each hostile one is measured against them: a long name (refused, after
// its characters are counted) and a long string in a field the service does not know (refused
// unread), the cheapest 64 KiB there is. The hostile numbers are ones JSON.parse rounds to 1, so
// the integer check reads them whole, and refuses them.
const LARGE_BODIES = [
  { what: 'a long name', status: 400, body: padded('{"name":"', 'a', '","categoryId":1}') },
  {
    what: 'a long unknown field',
    status: 400,
    body: padded('{"name":"x","categoryId":1,"note":"', 'a', '"}'),
  },
  { what: 'zeros in a number', status: 400, body: padded('{"name":"x","categoryId":1.', '0', '1}') },
  { what: 'spaces between members', status: 201, body: padded('{"name":"x",', ' ', '"categoryId":1}') },
  {
    what: 'digits in a number',
    status: 400,
    body: padded('{"name":"x","categoryId":1.00000000000000000', '7', '}'),
  },
]
const ORDINARY = 2
const POSTS = Number(
  process.argv.find((arg) => arg.startsWith('--posts='))?.slice('--posts='.length) ?? 1_000,
)

const serve = () => serveMemoryApp({ dist: new URL('../dist', import.meta.url).pathname, key: KEY })

const checkNs = async (body) => {
  const { memberIsSafeInteger } = await import('../dist/body/integer-text.js')
  const runs = []
  for (let run = 0; run < 7; run++) {
    const n = 2_000_000
    const started = process.hrtime.bigint()
    for (let i = 0; i < n; i++)
      if (memberIsSafeInteger(body, 'categoryId') !== true) throw new Error('refused a valid body')
    runs.push(Number(process.hrtime.bigint() - started) / n)
  }
  return runs.sort((a, b) => a - b)[3]
}

// A server in a child process, so that its CPU time is its own: POSTs to it, and its CPU time so far.
const startServer = async () => {
  const child = fork(new URL(import.meta.url).pathname, ['serve'])
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)))
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu))
      child.send('cpu')
    })
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const post = (body, status) =>
    new Promise((resolve, reject) => {
      const headers = {
        Authorization: `Bearer ${KEY}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      }
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/pets', agent, headers },
        (res) => {
          res.resume()
          res.on('end', () =>
            res.statusCode === status ? resolve() : reject(new Error(`${res.statusCode}`)),
          )
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  // `n` POSTs, eight at a time, of the bodies in turn; the server's CPU time per POST, in µs.
  const cpuPerPostUs = async (bodies, n) => {
    const before = await cpu()
    let i = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (i < n) {
          const { body, status } = bodies[i++ % bodies.length]
          await post(body, status)
        }
      }),
    )
    const after = await cpu()
    return (after.user - before.user + after.system - before.system) / n
  }
  const stop = () => {
    child.kill()
    agent.destroy()
  }
  return { cpuPerPostUs, stop }
}

const median = (runs) => runs.sort((a, b) => a - b)[runs.length >> 1]

const createCpuUs = async (server) => {
  const creates = BODIES.map((body) => ({ body, status: 201 }))
  await server.cpuPerPostUs(creates, 5_000)
  const runs = []
  for (let run = 0; run < 3; run++) runs.push(await server.cpuPerPostUs(creates, 20_000))
  return median(runs)
}

// Each large body in turn within each run, so that a slower moment of the machine is shared.
const largeCpuUs = async (server) => {
  for (const large of LARGE_BODIES) await server.cpuPerPostUs([large], Math.min(POSTS, 200))
  const runs = LARGE_BODIES.map(() => [])
  for (let run = 0; run < 3; run++)
    for (const [i, large] of LARGE_BODIES.entries()) runs[i].push(await server.cpuPerPostUs([large], POSTS))
  return runs.map(median)
}

if (process.argv[2] === 'serve') await serve()
else {
  const checks = []
  for (const body of BODIES) checks.push(await checkNs(body))
  const server = await startServer()
  const create = await createCpuUs(server)
  const large = await largeCpuUs(server)
  server.stop()
  for (const [i, body] of BODIES.entries())
    console.log(`check of a ${body.length}-byte body: ${checks[i].toFixed(0)} ns (median of 7 runs)`)
  console.log(`server CPU per create over HTTP: ${create.toFixed(1)} µs (median of 3 runs of 20,000)`)
  const worst = Math.max(...checks) / 1000
  console.log(`the check's share of a create: at most ${((worst / create) * 100).toFixed(2)} %`)
  console.log(`server CPU per POST of a ${LIMIT}-byte body (median of 3 runs of ${POSTS}), answered:`)
  for (const [i, { what, status }] of LARGE_BODIES.entries()) {
    const against = LARGE_BODIES.slice(0, ORDINARY).map(
      (o, j) => `${(large[i] / large[j]).toFixed(2)} × ${o.what}`,
    )
    console.log(
      `  ${i < ORDINARY ? 'ordinary' : 'hostile'}, ${what}, ${status}: ${large[i].toFixed(1)} µs` +
        (i < ORDINARY ? '' : ` (${against.join(', ')})`),
    )
  }
}
