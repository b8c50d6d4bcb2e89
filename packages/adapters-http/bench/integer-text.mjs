// What the integer-text check of createPet (src/integer-text.ts) costs, beside what a create costs.
// Not a test: it asserts nothing and no test runner picks it up. Build first, then run it:
//   pnpm --filter @pets/adapters-http run build && node packages/adapters-http/bench/integer-text.mjs
// It prints the check's time per body (a tight loop), the server's CPU time per POST /v1/pets over
// HTTP (in-memory store, no log: the cheapest create there is), and the one as a share of the other.
import { Buffer } from 'node:buffer'
import { fork } from 'node:child_process'
import { Agent, createServer, request } from 'node:http'
import { createRequire } from 'node:module'

const require = createRequire(new URL('../package.json', import.meta.url))
const KEY = 'k'.repeat(40)
const BODIES = [
  '{"name":"Rex","categoryId":1}',
  '{"name":"A long name for a pet: 1.5 kg of \\"cat\\"","categoryId":9007199254740991,"status":"pending"}',
]

const serve = async () => {
  const http = await import('../dist/index.js')
  const memory = await import(require.resolve('@pets/adapters-memory'))
  const domain = await import(require.resolve('@pets/domain'))
  const pets = memory.createMemoryPetRepository()
  const app = http.createHttpApp({
    useCases: {
      createPet: domain.createPet({ pets }),
      listPets: domain.listPets({ pets }),
      getPet: domain.getPet({ pets, clock: { now: () => new Date() } }),
    },
    authenticator: memory.createMemoryApiKeyStore({ keys: [{ key: KEY, name: 'bench' }] }),
    publicBaseUrl: 'http://127.0.0.1/v1',
  })
  const server = createServer(app.callback())
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() })
  })
}

const checkNs = async (body) => {
  const { numbersAreSafeIntegers } = await import('../dist/integer-text.js')
  const runs = []
  for (let run = 0; run < 7; run++) {
    const n = 2_000_000
    const started = process.hrtime.bigint()
    for (let i = 0; i < n; i++) if (!numbersAreSafeIntegers(body)) throw new Error('refused a valid body')
    runs.push(Number(process.hrtime.bigint() - started) / n)
  }
  return runs.sort((a, b) => a - b)[3]
}

const createCpuUs = async () => {
  const child = fork(new URL(import.meta.url).pathname, ['serve'])
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)))
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu))
      child.send('cpu')
    })
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const post = (body) =>
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
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`${res.statusCode}`))))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  const creates = async (n) => {
    let i = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (i < n) await post(BODIES[i++ & 1])
      }),
    )
  }
  await creates(5_000)
  const runs = []
  for (let run = 0; run < 3; run++) {
    const n = 20_000
    const before = await cpu()
    await creates(n)
    const after = await cpu()
    runs.push((after.user - before.user + after.system - before.system) / n)
  }
  child.kill()
  agent.destroy()
  return runs.sort((a, b) => a - b)[1]
}

if (process.argv[2] === 'serve') await serve()
else {
  const checks = []
  for (const body of BODIES) checks.push(await checkNs(body))
  const create = await createCpuUs()
  for (const [i, body] of BODIES.entries())
    console.log(`check of a ${body.length}-byte body: ${checks[i].toFixed(0)} ns (median of 7 runs)`)
  console.log(`server CPU per create over HTTP: ${create.toFixed(1)} µs (median of 3 runs of 20,000)`)
  const worst = Math.max(...checks) / 1000
  console.log(`the check's share of a create: at most ${((worst / create) * 100).toFixed(2)} %`)
}
