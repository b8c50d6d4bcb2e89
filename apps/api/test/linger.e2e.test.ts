import { spawn } from 'node:child_process'
import { request, type ClientRequest } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'linger-test-key'
const KIB = 1024
const CHUNK = Buffer.alloc(4 * KIB, 0x20)

// POSTs a pet, its body sent by `send`, and says what came back: the status, or the error the client saw.
const post = (url: string, send: (req: ClientRequest) => void) =>
  new Promise<string>((resolve) => {
    const req = request(
      `${url}/v1/pets`,
      {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(String(res.statusCode)))
        res.on('error', (error: NodeJS.ErrnoException) => resolve(`response ${error.code ?? error.message}`))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    send(req)
  })

// 100 KiB in 4 KiB chunks (chunked: no Content-Length), as fast as the socket takes them.
const upload = (url: string) =>
  post(url, (req) => {
    let sent = 0
    const more = () => {
      while (sent < 100 * KIB) {
        sent += CHUNK.length
        if (!req.write(CHUNK)) return void req.once('drain', more)
      }
      req.end()
    }
    req.write('{"name":"')
    more()
  })

// `body` whole with its Content-Length (no Expect: 100-continue), as node's client and fetch send a buffer.
const uploadWhole = (url: string, body: Buffer) => post(url, (req) => req.end(body))

// A POST with the key, unless `init` says otherwise; the status, or what went wrong.
const fetchStatus = (url: string, body: Buffer, init: RequestInit = {}) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body,
    ...init,
  }).then(
    (res) => String(res.status),
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
  )

// Keeps the machine busy, as other work on it does: two processes that spin for as long as the test.
const busyMachine = () => {
  const spinners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }))
  return () => spinners.forEach((spinner) => spinner.kill('SIGKILL'))
}

// The service of a describe's tests, in a process of its own: started before them, stopped after them.
const serviceOfTheseTests = (): { readonly url: string } => {
  let svc: ChildService
  beforeAll(async () => {
    svc = await startTestService({ mode: 'child', env: { API_KEYS: KEY, SHUTDOWN_DELAY_MS: '0' } })
  })
  afterAll(() => svc?.stop())
  return {
    get url() {
      return svc.url
    },
  }
}

describe('a refused upload, from a client in another process (lingering close)', () => {
  const svc = serviceOfTheseTests()

  it('is read as 413 each time: 40 uploads of 100 KiB, chunked, on a busy machine, no EPIPE, no reset', async () => {
    const idle = busyMachine()
    try {
      const outcomes: Array<string> = []
      for (let i = 0; i < 40; i++) outcomes.push(await upload(svc.url))
      expect(outcomes).toEqual(Array.from({ length: 40 }, () => '413'))
    } finally {
      idle()
    }
  }, 60_000)

  it('is read as 413 by node:http and by fetch for a body of 20 MiB sent whole, never a reset', async () => {
    const body = Buffer.alloc(20 * KIB * KIB, 0x20)
    const outcomes: Array<string> = []
    for (let i = 0; i < 5; i++)
      outcomes.push(await uploadWhole(svc.url, body), await fetchStatus(svc.url, body))
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => '413'))
  }, 60_000)
})

// A raw client that sends its whole body, whatever it reads meanwhile (as a client that reads only once it
// has written does; the system takes its writes after the server's end too): `head`, then `parts` of 16 KiB
// `paceMs` apart, then its own end. What it read, and the error it met, if any (a reset loses what it had not
// read yet).
const rawUpload = (url: string, head: string, parts: number, paceMs: number) =>
  new Promise<{ answer: string; error: string | undefined }>((resolve) => {
    const socket = connect({ port: Number(new URL(url).port), host: '127.0.0.1', allowHalfOpen: true })
    const part = Buffer.alloc(16 * KIB, 0x20)
    let answer = ''
    let error: string | undefined
    let sent = 0
    const more = (): void => {
      while (sent < parts && !socket.destroyed) {
        sent++
        if (paceMs > 0) return void setTimeout(() => socket.write(part, more), paceMs)
        if (!socket.write(part)) return void socket.once('drain', more)
      }
      if (sent === parts) socket.end()
    }
    socket.write(head, more)
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message))
    socket.on('close', () => resolve({ answer, error }))
  })

describe("an answer on a connection node's server has let go of, while the client still sends (lingering close)", () => {
  const svc = serviceOfTheseTests()

  it('is read by fetch as 401 for a method node does not know, with a body of 16 MiB', async () => {
    const body = Buffer.alloc(16 * KIB * KIB, 0x20)
    const outcomes: Array<string> = []
    for (let i = 0; i < 5; i++)
      outcomes.push(await fetchStatus(svc.url, body, { method: 'FOO', headers: {} }))
    expect(outcomes).toEqual(Array.from({ length: 5 }, () => '401'))
  }, 30_000)

  const length = `Content-Length: ${192 * KIB}\r\n\r\n`
  const heads = [
    ['400, for a head node refuses', `POST /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n${length}`, 400],
    ['401, for CONNECT', `CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\n${length}`, 401],
    ['401, for a method node does not know', `FOO /v1/pets HTTP/1.1\r\nHost: x\r\n${length}`, 401],
    // As node's own client sends the body of a DELETE: without a length, so it reads as a next request.
    [
      '405, for a DELETE whose body has no length',
      `DELETE /v1/pets/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
      405,
    ],
  ] as const

  it.each(heads)(
    'is read as %s, 192 KiB following it in 12 writes 10 ms apart, and the connection closes after them, without a reset',
    async (_, head, status) => {
      const { answer, error } = await rawUpload(svc.url, head, 12, 10)
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(answer).toContain(`"status":${status}}`)
      expect(error).toBeUndefined()
    },
  )
})
