import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'connections-test-key'
const HEADERS_TIMEOUT_MS = 2_000
const MAX_CONNECTIONS = 20

type Held = { readonly socket: Socket; readonly closed: Promise<number>; readonly stop: () => void }

// A client that sends a request's headers a byte every 100 ms, never finishing them (slowloris).
// `closed` resolves with the milliseconds from its connection until the server closed it.
const slowHeaders = (port: number): Held => {
  const socket = connect(port, '127.0.0.1')
  const started = Date.now()
  const text = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Slow: ${'a'.repeat(1000)}`
  let sent = 0
  const timer = setInterval(() => {
    if (socket.writable) socket.write(text[sent++ % text.length]!)
  }, 100)
  socket.on('error', () => {})
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer)
      resolve(Date.now() - started)
    }),
  )
  return { socket, closed, stop: () => socket.destroy() }
}

// How long each held connection lasted, as far as `ms`: Infinity for one still open then.
const closedWithin = (held: ReadonlyArray<Held>, ms: number) => {
  const deadline = new Promise<number>((resolve) => setTimeout(resolve, ms, Number.POSITIVE_INFINITY))
  return Promise.all(held.map((h) => Promise.race([h.closed, deadline])))
}

// One request on a new connection, with a deadline: its status, or what went wrong.
const normalRequest = async (url: string) => {
  try {
    const res = await fetch(`${url}/v1/pets`, {
      headers: { Authorization: `Bearer ${KEY}`, Connection: 'close' },
      signal: AbortSignal.timeout(1_000),
    })
    await res.arrayBuffer()
    return res.status
  } catch {
    return 'refused'
  }
}

describe('connections that send their headers slowly, or stop reading (a real process)', () => {
  let svc: ChildService
  let port: number
  beforeAll(async () => {
    svc = await startTestService({
      mode: 'child',
      env: {
        API_KEYS: KEY,
        SHUTDOWN_DELAY_MS: '0',
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      },
    })
    port = Number(new URL(svc.url).port)
  })
  afterAll(() => svc?.stop())

  it('are closed within twice HEADERS_TIMEOUT_MS, while a normal client is served meanwhile', async () => {
    const held = Array.from({ length: MAX_CONNECTIONS - 5 }, () => slowHeaders(port))
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await normalRequest(svc.url)).toBe(200)
      const closedAfter = await closedWithin(held, 3 * HEADERS_TIMEOUT_MS)
      expect(Math.max(...closedAfter)).toBeLessThan(2 * HEADERS_TIMEOUT_MS)
      expect(Math.min(...closedAfter)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50)
    } finally {
      held.forEach((h) => h.stop())
    }
  })

  it('past MAX_CONNECTIONS: new connections are closed, with a warn line; once the slow ones are cut, a client is served', async () => {
    const held = Array.from({ length: MAX_CONNECTIONS }, () => slowHeaders(port))
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await normalRequest(svc.url)).toBe('refused')
      await expect
        .poll(() => svc.output(), { timeout: 3_000 })
        .toContain(`connections refused: MAX_CONNECTIONS (${MAX_CONNECTIONS}) are open on this listener`)
      expect(Math.max(...(await closedWithin(held, 3 * HEADERS_TIMEOUT_MS)))).toBeLessThan(
        2 * HEADERS_TIMEOUT_MS,
      )
      expect(await normalRequest(svc.url)).toBe(200)
    } finally {
      held.forEach((h) => h.stop())
    }
  })

  it('that stop reading their answers are reset once nothing moved on it for 5 s (1.5 times HEADERS_TIMEOUT_MS, at least 5 s), within twice that', async () => {
    // The docs page's script (1.7 MB, no key needed), asked for four times: more than the kernel's buffers hold.
    const page = await (await fetch(`${svc.url}/docs`)).text()
    const script = /src="(\/docs\/assets\/[^"]+\.js)"/.exec(page)![1]!
    const socket = connect(port, '127.0.0.1')
    const failed = new Promise<string>((resolve) =>
      socket.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message)),
    )
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve))
      socket.pause()
      socket.write(`GET ${script} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(4))
      await new Promise((resolve) => setTimeout(resolve, 500))
      // Meanwhile the others are served.
      expect(await normalRequest(svc.url)).toBe(200)
      // Past 2 × 5 s, the server has reset it: a byte written now fails (it was taken, and never read, before).
      await new Promise((resolve) => setTimeout(resolve, 2 * 5_000 + 500))
      socket.write('\r\n')
      expect(
        await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 1_000, 'still open'))]),
      ).toMatch(/^(ECONNRESET|EPIPE)$/)
    } finally {
      socket.destroy()
    }
  })
})
