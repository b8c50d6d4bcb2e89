import { spawn } from 'node:child_process'
import { request, type ClientRequest } from 'node:http'
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

const fetchStatus = (url: string, body: Buffer) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body,
  }).then(
    (res) => String(res.status),
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
  )

// Keeps the machine busy, as other work on it does: two processes that spin for as long as the test.
const busyMachine = () => {
  const spinners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }))
  return () => spinners.forEach((spinner) => spinner.kill('SIGKILL'))
}

describe('a refused upload, from a client in another process (lingering close)', () => {
  let svc: ChildService
  beforeAll(async () => {
    svc = await startTestService({ mode: 'child', env: { API_KEYS: KEY, SHUTDOWN_DELAY_MS: '0' } })
  })
  afterAll(() => svc?.stop())

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
