// The bench scripts' server, run in a child process so that its CPU time is its own: the pets API
// of the build at `dist` on the in-memory store, no log, `seeded` pets first, one key. It tells its
// parent the port it listens on, and its CPU time whenever asked ('cpu'). With `edges`, served as apps/api
// serves it: inOrder and answerEveryRequest on a server made with APP_ANSWERS_EVERY_REQUEST and a 16 KiB
// maxHeaderSize, so that the connection edges' cost a request (request-turns.ts, later-refusals.ts) is counted.
import { fork } from 'node:child_process'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { STEADY_NODE_FLAGS, steadyServer } from './wrk-ab.mjs'

export const serveMemoryApp = async ({ dist, key, seeded = 0, edges = false }) => {
  const require = createRequire(new URL('../package.json', import.meta.url))
  const http = await import(join(dist, 'index.js'))
  const memory = await import(require.resolve('@pets/adapters-memory'))
  const domain = await import(require.resolve('@pets/domain'))
  const pets = memory.createMemoryPetRepository()
  for (let i = 0; i < seeded; i++) await pets.add({ name: `Rex ${i}`, categoryId: 1, status: 'available' })()
  const app = http.createHttpApp({
    useCases: {
      createPet: domain.createPet({ pets }),
      listPets: domain.listPets({ pets }),
      getPet: domain.getPet({ pets, clock: { now: () => new Date() } }),
    },
    authenticator: memory.createMemoryApiKeyStore({ keys: [{ key, name: 'bench' }] }),
    publicBaseUrl: 'http://127.0.0.1/v1',
  })
  const handle = edges ? http.inOrder(app.callback()) : app.callback()
  const server = edges
    ? createServer({ maxHeaderSize: 16 * 1024, ...http.APP_ANSWERS_EVERY_REQUEST }, handle)
    : createServer(handle)
  if (edges) http.answerEveryRequest(server, handle)
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() })
  })
}

// The parent's side: forks `script` (a bench script's own URL, which runs serveMemoryApp when given `serve`)
// on the build at `dist`, with `args` after it; the server's port, its CPU time in µs when asked, and how to
// stop it.
export const forkMemoryApp = async (script, dist, args = []) => {
  const child = fork(new URL(script).pathname, ['serve', dist, ...args], {
    execArgv: [...process.execArgv, ...STEADY_NODE_FLAGS],
  })
  await steadyServer(child.pid)
  const port = await new Promise((ok) => child.once('message', (m) => ok(m.port)))
  const cpuUs = () =>
    new Promise((ok) => {
      child.once('message', (m) => ok(m.cpu.user + m.cpu.system))
      child.send('cpu')
    })
  return { port, cpuUs, stop: () => child.kill() }
}
