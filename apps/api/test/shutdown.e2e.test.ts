import { pollUntil } from '@pets/domain/testing'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SAME_STOP_MS } from '../src/lifecycle.js'
import { startLoad } from './support/load.js'
import { databaseBehindProxy } from './support/postgres-via-proxy.js'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'shutdown-e2e-key-7f3a9c'
const createPet = (url: string) => (requestId: string) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
    },
    body: JSON.stringify({ name: requestId, categoryId: 1 }),
  })
// Whether a new connection to `url` is refused: its listener has closed.
const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })

// Every line the exited service wrote, parsed, once its stdout and stderr are read to their end.
const linesOf = async (svc: ChildService) => {
  await Promise.all([svc.child.stdout!, svc.child.stderr!].map((s) => s.closed || once(s, 'close')))
  return svc
    .output()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

// The built service as a real process on PostgreSQL behind a proxy: pausing the proxy holds
// requests in flight for as long as the test wants, without a sleep in the service's code.
describe('graceful shutdown of the built service', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const setUp = async (env: Record<string, string>) => {
    const db = await databaseBehindProxy()
    cleanups.push(db.close)
    const svc = await startTestService({
      mode: 'child',
      env: {
        DATABASE_URL: db.url,
        API_KEYS: KEY,
        DATABASE_POOL_SIZE: '32',
        // A paused proxy holds the requests in flight (and the connections being opened) for over a
        // second: longer than the default timeouts, after which they would be answered 503.
        DATABASE_CONNECT_TIMEOUT_MS: '10000',
        DATABASE_STATEMENT_TIMEOUT_MS: '10000',
        ...env,
      },
    })
    cleanups.push(async () => void (await svc.stop('SIGKILL')))
    return { ...db, svc }
  }

  it('answers every request it accepted when SIGTERM comes with 32 in flight, and exits 0 within the grace', async () => {
    const delayMs = 300
    const graceMs = 5_000
    const { svc, proxy, database } = await setUp({
      SHUTDOWN_DELAY_MS: String(delayMs),
      SHUTDOWN_GRACE_MS: String(graceMs),
    })
    const load = startLoad(32, createPet(svc.url))
    await expect
      .poll(() => load.sent.filter((s) => s.status === 201).length, { timeout: 10_000 })
      .toBeGreaterThan(64)

    proxy.pause()
    // Every loop now waits for its insert: 32 requests in the service, none answered. At the
    // database, the insert under way; the creations that came meanwhile wait for the next one.
    await expect.poll(() => load.inFlight().length, { timeout: 10_000 }).toBe(32)
    await pollUntil('an insert waits for the database', () => proxy.waiting() >= 1, 10_000)
    const inFlightAtSignal = load.inFlight().map((s) => s.id)
    const signalledAt = Date.now()
    svc.child.kill('SIGTERM')
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(503)

    // The listener closes after the delay, while the 32 are still held; then the database answers.
    await pollUntil('the listener is closed', () => refused(svc.url), 10_000)
    proxy.restore()
    expect(await svc.exited).toBe(0)
    expect(Date.now() - signalledAt).toBeLessThan(delayMs + graceMs)
    const sent = await load.done()

    const byId = new Map(sent.map((s) => [s.id, s]))
    for (const id of inFlightAtSignal)
      expect(byId.get(id), `request ${id}, in flight at SIGTERM`).toMatchObject({
        status: 201,
        body: { name: id },
      })
    // A request the service saw is in its log; each of those got its whole answer.
    const logged = new Set(
      svc
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => (JSON.parse(line) as { requestId: string }).requestId),
    )
    for (const s of sent.filter((s) => logged.has(s.id)))
      expect(s, 'a request the service logged').toMatchObject({
        status: expect.any(Number),
        body: expect.anything(),
      })
    // Those that failed never reached it: refused, or reset before the service read them.
    for (const s of sent.filter((s) => s.error !== undefined)) expect(logged.has(s.id)).toBe(false)
    expect(sent.filter((s) => s.status !== undefined && s.status !== 201)).toEqual([])

    const { rows } = await database.pool.query<{ name: string }>('SELECT name FROM pets')
    const stored = new Set(rows.map((r) => r.name))
    for (const s of sent.filter((s) => s.status === 201)) expect(stored.has(s.id)).toBe(true)
  })

  it('exits 1 when the grace runs out before the requests in flight finish, with a line for each one it cut', async () => {
    const { svc, proxy } = await setUp({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '300' })
    proxy.pause()
    const before = proxy.waiting()
    const held = createPet(svc.url)('held-request').catch((error: unknown) => error)
    await pollUntil('the request waits for the database', () => proxy.waiting() > before)
    svc.child.kill('SIGTERM')
    expect(await svc.exited).toBe(1)
    expect(await held).toBeInstanceOf(Error)
    // The database never answers its insert: the request's line is written by the cut, not by its end.
    const lines = await linesOf(svc)
    expect(lines.filter((line) => line['requestId'] === 'held-request')).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request',
        method: 'POST',
        route: '/v1/pets',
        operation: 'createPet',
        status: 499,
        aborted: true,
        outcome: 'cut',
        apiKeyId: expect.any(String),
        durationMs: expect.any(Number),
      }),
    ])
    expect(lines.at(-1)).toMatchObject({ level: 40, msg: 'stopped', outcome: 'grace-exceeded', cut: 1 })
    proxy.restore()
  })

  it('exits 0 at SHUTDOWN_GRACE_MS=0 with nothing in flight: closing the pool is no request', async () => {
    const { svc } = await setUp({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '0' })
    // The pool holds a connection, and this client an idle keep-alive one, when the signal comes.
    expect((await createPet(svc.url)('before-the-signal')).status).toBe(201)
    svc.child.kill('SIGTERM')
    expect(await svc.exited).toBe(0)
    expect((await linesOf(svc)).at(-1)).toMatchObject({ level: 30, msg: 'stopped', outcome: 'clean', cut: 0 })
  })

  it('exits at once on a second signal', async () => {
    const { svc, proxy } = await setUp({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '30000' })
    proxy.pause()
    const before = proxy.waiting()
    const held = createPet(svc.url)('held-request').catch((error: unknown) => error)
    await pollUntil('the request waits for the database', () => proxy.waiting() > before)
    const first = Date.now()
    svc.child.kill('SIGTERM')
    await expect.poll(() => svc.output(), { timeout: 10_000 }).toContain('"msg":"shutting down"')
    // One that came sooner would be the first's echo (the next test).
    await new Promise((resolve) => setTimeout(resolve, first + SAME_STOP_MS + 100 - Date.now()))
    const second = Date.now()
    svc.child.kill('SIGINT')
    expect(await svc.exited).toBe(1)
    expect(Date.now() - second).toBeLessThan(2_000)
    await held
    proxy.restore()
  })

  it('takes a signal that comes again at once (Ctrl-C under `pnpm start`: the terminal and pnpm signal it) as the same stop: answers its requests in flight, exits 0', async () => {
    const { svc, proxy } = await setUp({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '30000' })
    proxy.pause()
    const before = proxy.waiting()
    const held = createPet(svc.url)('held-request').catch((error: unknown) => error)
    await pollUntil('the request waits for the database', () => proxy.waiting() > before)
    svc.child.kill('SIGINT')
    // The second comes once the first has been taken (two sent at once may reach it as one), well within 1 s:
    // its listener closed (a 503 of /readyz might be the paused database's).
    await pollUntil('the first signal is taken', () => refused(svc.url))
    svc.child.kill('SIGINT')
    await expect.poll(() => svc.output(), { timeout: 10_000 }).toContain('taken as the same stop')
    proxy.restore()
    expect(await svc.exited).toBe(0)
    const answer = await held
    expect(answer instanceof Response ? answer.status : answer).toBe(201)
    const lines = await linesOf(svc)
    expect(lines.filter((line) => line['signal'] === 'SIGINT')).toEqual([
      expect.objectContaining({ level: 30, sameStopMs: SAME_STOP_MS }),
    ])
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'stopped', outcome: 'clean', reason: 'SIGINT' })
  })

  it('closes a connection that sent nothing once its listener is closed, not at the end of the grace; one that sends its request meanwhile is answered', async () => {
    const svc = await startTestService({
      mode: 'child',
      env: { API_KEYS: KEY, SHUTDOWN_DELAY_MS: '200', SHUTDOWN_GRACE_MS: '30000' },
    })
    cleanups.push(async () => void (await svc.stop('SIGKILL')))
    const port = Number(new URL(svc.url).port)
    // Held open ahead of use, as a balancer's preconnection is; and one that writes its request late.
    const opened = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket))
        socket.on('error', () => {})
      })
    const [silent, late] = await Promise.all([opened(), opened()])
    const silentClosed = once(silent, 'close')
    let answer = ''
    late.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    const signalledAt = Date.now()
    svc.child.kill('SIGTERM')
    await pollUntil('the listener is closed', () => refused(svc.url), 10_000)
    late.write(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`)
    expect(await svc.exited).toBe(0)
    await silentClosed
    // The delay, then the second a silent connection is given: not the 30 s of the grace.
    expect(Date.now() - signalledAt).toBeLessThan(10_000)
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Connection: close\r\n[^]*\[\]$/)
    expect((await linesOf(svc)).at(-1)).toMatchObject({ msg: 'stopped', outcome: 'clean', cut: 0 })
  })
})
