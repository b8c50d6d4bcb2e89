import type { Authenticator } from '@pets/domain'
import { IncomingMessage, ServerResponse, createServer, request, type Server } from 'node:http'
import { Socket, connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LINGER_BYTES, LINGER_MS } from '../src/connection/linger.js'
import { answerClientError, createHttpApp } from '../src/index.js'
import { BEARER, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

const KIB = 1024
const CHUNK = Buffer.alloc(4 * KIB, 0x20)

// POSTs a body of `size` bytes in 4 KiB chunks (chunked: no Content-Length), as fast as the socket
// takes them, and says what came back: the status, or the error the client saw.
const upload = (port: number, size: number, headers: Record<string, string>) =>
  new Promise<string>((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/pets', headers, agent: false },
      (res) => {
        res.resume()
        res.on('end', () => resolve(String(res.statusCode)))
        res.on('error', (error: NodeJS.ErrnoException) => resolve(`response ${error.code ?? error.message}`))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    let sent = 0
    const more = () => {
      while (sent < size) {
        sent += CHUNK.length
        if (!req.write(CHUNK)) return void req.once('drain', more)
      }
      req.end()
    }
    req.write('{"name":"')
    more()
  })

/**
 * Writes each part at its time (ms after connecting; 0: at once) without reading, reads from `readAtMs` on and
 * ends its side at `endAtMs` (with `allowHalfOpen`, not before, the server's end come or not): what came back,
 * and the error the socket met (a reset: EPIPE, ECONNRESET), if any.
 */
const writeBeforeReading = (
  port: number,
  parts: ReadonlyArray<readonly [number, string]>,
  readAtMs: number,
  endAtMs: number,
  allowHalfOpen = false,
) =>
  new Promise<{ text: string; error: string | undefined }>((resolve) => {
    let text = ''
    let error: string | undefined
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen })
    socket.pause()
    for (const [ms, part] of parts)
      if (ms === 0) socket.write(part)
      else setTimeout(() => socket.write(part), ms)
    setTimeout(() => socket.resume(), readAtMs)
    setTimeout(() => socket.end(), endAtMs)
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    socket.on('close', () => resolve({ text, error }))
  })

/** The statuses of the answers in `text`, in order. */
const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])

describe('an answer that leaves a body unread, while the client still sends it', () => {
  let served: ServedApp
  beforeAll(async () => {
    served = await serveApp(memoryApp().options)
  })
  afterAll(() => served.close())
  const json = { 'Content-Type': 'application/json' }

  it.each([
    ['401', json],
    ['415', { Authorization: BEARER, 'Content-Type': 'text/plain' }],
    ['413', { ...json, Authorization: BEARER }],
  ])(
    'reaches the client as %s, while it still sends its body (apps/api tests it in another process)',
    async (status, headers) => {
      for (let i = 0; i < 10; i++) expect(await upload(served.port, 100 * KIB, headers)).toBe(status)
    },
  )

  it('closes the connection once the rest of the body has come, without a reset', async () => {
    const socket = connect(served.port, '127.0.0.1')
    const body = Buffer.alloc(100 * KIB, 0x20)
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    )
    socket.write(body)
    let answer = ''
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')))
    const errors: Array<string> = []
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message))
    await new Promise((resolve) => socket.on('close', resolve))
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(errors).toEqual([])
  })

  // As Python's http.client: the whole body written before a byte of the answer is read. Reading is stopped
  // in the kernel (`onread` and pause), so an answer that arrives early waits in the socket's receive queue,
  // where a reset from the server would drop it unread.
  const writeAllThenRead = (bytes: number, headers: string) =>
    new Promise<{ answer: string; errors: Array<string> }>((resolve) => {
      const received: Array<Buffer> = []
      const onread = {
        buffer: Buffer.alloc(64 * KIB),
        callback: (n: number, buffer: Buffer) => received.push(Buffer.from(buffer.subarray(0, n))) > 0,
      }
      const socket = connect({ port: served.port, host: '127.0.0.1', onread })
      socket.pause()
      const errors: Array<string> = []
      socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message))
      socket.on('close', () => resolve({ answer: Buffer.concat(received).toString('latin1'), errors }))
      socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${bytes}\r\n\r\n`)
      socket.write(Buffer.alloc(bytes, 0x20), () => {
        socket.resume()
        socket.end()
      })
    })

  it.each([
    ['401', 'Content-Type: application/json\r\n'],
    ['413', `Authorization: ${BEARER}\r\nContent-Type: application/json\r\n`],
  ])(
    'answers %s to a client that writes all of a 4 MiB body before it reads, without a reset',
    async (status, headers) => {
      const { answer, errors } = await writeAllThenRead(4 * 1024 * KIB, headers)
      expect(errors).toEqual([])
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
    },
    15_000,
  )

  // A raw client that sends headers, then a body it never ends: what it reads, and when the server closes.
  const endless = (pace: 'flood' | 'trickle') =>
    new Promise<{ answer: string; closedAfterMs: number; sent: number }>((resolve) => {
      const socket = connect(served.port, '127.0.0.1')
      const started = Date.now()
      let answer = ''
      let sent = 0
      let timer: NodeJS.Timeout | undefined
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      )
      const chunk = `${CHUNK.length.toString(16)}\r\n${CHUNK.toString()}\r\n`
      const send = () => {
        if (socket.destroyed) return
        if (pace === 'trickle') {
          socket.write(chunk)
          sent += CHUNK.length
          timer = setTimeout(send, sent < 80 * KIB ? 0 : 200)
          return
        }
        while (socket.write(chunk)) sent += CHUNK.length
        socket.once('drain', send)
      }
      send()
      socket.on('data', (data: Buffer) => (answer += data.toString('latin1')))
      socket.on('error', () => {})
      socket.on('close', () => {
        clearTimeout(timer)
        resolve({ answer, closedAfterMs: Date.now() - started, sent })
      })
    })

  it(`stops reading a client that goes on sending past ${LINGER_BYTES / KIB} KiB, and closes after ${LINGER_MS / 1000} s`, async () => {
    const { answer, closedAfterMs, sent } = await endless('flood')
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(answer).toContain('Connection: close')
    // Open until then, so that a client that reads as it writes has read its answer before the close.
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_MS)
    expect(closedAfterMs).toBeLessThan(LINGER_MS + 2_000)
    // What lingered, and what the kernel's buffers held by then; never the whole flood.
    expect(sent).toBeGreaterThan(LINGER_BYTES)
    expect(sent).toBeLessThan(64 * 1024 * KIB)
  }, 15_000)

  it(`cuts a client that sends on slowly after ${LINGER_MS / 1000} s, after its answer`, async () => {
    const { answer, closedAfterMs } = await endless('trickle')
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_MS)
    expect(closedAfterMs).toBeLessThan(LINGER_MS + 2_000)
  }, 15_000)

  // The body's end and bytes that are no request in one write: node's parser refuses those behind the request
  // (later-refusals.ts), so the connection lingers again after the body (closeAfterLinger), within the same
  // LINGER_MS, not LINGER_MS more. The client never ends its side, as one that goes on sending.
  it(`closes ${LINGER_MS / 1000} s after the answer a connection whose body is followed by bytes refused behind it`, async () => {
    const body = 512 * KIB
    const part = Buffer.alloc(16 * KIB, 0x20)
    const socket = connect({ port: served.port, host: '127.0.0.1', allowHalfOpen: true })
    const started = Date.now()
    let answeredAfterMs = -1
    let answer = ''
    socket.on('data', (data: Buffer) => {
      if (answeredAfterMs < 0) answeredAfterMs = Date.now() - started
      answer += data.toString('latin1')
    })
    socket.on('error', () => {})
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body}\r\n\r\n`,
    )
    // The body over 2.7 s (within LINGER_MS of the 401), its end with the refused bytes, then more every 100 ms.
    let sent = 0
    let timer: NodeJS.Timeout | undefined
    const step = () => {
      if (socket.destroyed) return
      if (sent + part.length < body) {
        socket.write(part)
        sent += part.length
        timer = setTimeout(step, (2_700 * part.length) / body)
        return
      }
      socket.write(
        sent < body
          ? Buffer.concat([part.subarray(0, body - sent), Buffer.from('\x01 no request\r\n')])
          : part,
      )
      sent = body
      timer = setTimeout(step, 100)
    }
    step()
    const closedAfterMs = await new Promise<number>((resolve) =>
      socket.on('close', () => {
        clearTimeout(timer)
        resolve(Date.now() - started)
      }),
    )
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    expect(closedAfterMs - answeredAfterMs).toBeGreaterThanOrEqual(LINGER_MS - 100)
    expect(closedAfterMs - answeredAfterMs).toBeLessThan(LINGER_MS + 1_500)
  }, 15_000)

  it("ends the answer through whatever end the response had before (a host's or a tool's wrapper)", async () => {
    const handle = createHttpApp(memoryApp().options).callback()
    // node's own request and response, without a socket, as an in-process driver makes them.
    const req = new IncomingMessage(new Socket())
    req.method = 'POST'
    req.url = '/v1/pets'
    req.headers = { authorization: BEARER, 'content-type': 'text/plain', 'content-length': '3' }
    req.push('Rex')
    req.push(null)
    req.complete = true
    const res = new ServerResponse(req)
    const ended = new Promise<number>((resolve) => {
      const end = res.end.bind(res) as (...args: Array<unknown>) => ServerResponse
      res.end = ((...args: Array<unknown>) => {
        resolve(res.statusCode)
        return end(...args)
      }) as typeof res.end
    })
    handle(req, res)
    expect(await ended).toBe(415)
  })
})

// node's parser reads a connection whose refused bytes wait for an answer (a method it does not know, answered
// once its key is looked up; bytes refused behind a request whose answer comes first), refusing each packet:
// for as long as a slow store takes, outside the lingering that follows the answer. 9.2 GB in a lookup of 4 s.
describe('bytes node refused, while the answer they wait for is made', () => {
  const LOOKUP_MS = 1_000
  let served: ServedApp
  beforeAll(async () => {
    const app = memoryApp()
    const { authenticator } = app.options
    const slow: Authenticator = {
      authenticate: (key) => () =>
        new Promise((resolve) =>
          setTimeout(() => void authenticator.authenticate(key)().then(resolve), LOOKUP_MS),
        ),
    }
    served = await serveApp({ ...app.options, authenticator: slow })
  })
  afterAll(() => served.close())

  // Sends `head`, then bytes as fast as the connection takes them until the first answer has come: what the
  // server's kernel took by then, and the answers read.
  const floodUntilAnswered = (head: string) =>
    new Promise<{ taken: number; answer: string }>((resolve) => {
      const socket = connect(served.port, '127.0.0.1')
      let answer = ''
      socket.on('error', () => {})
      socket.write(head)
      const send = () => {
        while (answer === '' && !socket.destroyed && socket.write(CHUNK));
        if (answer === '') socket.once('drain', send)
      }
      send()
      socket.on('data', (data: Buffer) => {
        if (answer === '')
          setTimeout(() => resolve({ taken: socket.bytesWritten - socket.writableLength, answer }), 50)
        answer += data.toString('latin1')
      })
    })

  it.each([
    [
      'a method node does not know',
      `FOO /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n`,
      405,
    ],
    [
      'bytes refused behind a listing',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n`,
      200,
    ],
  ])(
    `reads at most ${LINGER_BYTES / KIB} KiB of them: %s`,
    async (_, head, status) => {
      const { taken, answer } = await floodUntilAnswered(head)
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      // What was read, and what the kernel's buffers held by then; never the whole flood of a second.
      expect(taken, `${(taken / KIB / KIB).toFixed(0)} MiB taken`).toBeLessThan(64 * 1024 * KIB)
    },
    15_000,
  )
})

describe('an answer that says Connection: close, with a request pipelined behind it', () => {
  let served: ServedApp
  beforeAll(async () => {
    served = await serveApp(memoryApp().options)
  })
  afterAll(() => served.close())

  // Sends `first`, answered with Connection: close, then, without having read (paused), a request in two
  // writes 20 ms apart, as a pipelining client does; then reads: what came back, and the error it saw, if any.
  const pipelineBehind = (first: string) =>
    writeBeforeReading(
      served.port,
      [
        [0, first],
        [100, 'GET /v1/pets HTTP/1.1\r\n'],
        [120, `Host: x\r\nAuthorization: ${BEARER}\r\n\r\n`],
      ],
      200,
      300,
    )

  it.each([
    [
      'a 401 for a POST without a key, its body whole',
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n' +
        '{"name":"Rex","categoryId":1}',
    ],
    ['a 400 for a request without Host', 'GET /v1/pets HTTP/1.1\r\n\r\n'],
  ])('reaches the client: %s (the connection is read on after it, not reset)', async (_, first) => {
    // The server closed the connection once the answer was written: the next request made its system reset the
    // connection, the client's next write failed (EPIPE) and it never read the answer (bench/fuzz: 56 of 300
    // tries of one case; 20 of 20 so). RFC 9112 section 9.6: a server closes in stages, reading on after it.
    const { text, error } = await pipelineBehind(first)
    expect(error).toBeUndefined()
    expect(statusesOf(text)).toEqual([first.includes('Host: x') ? '401' : '400'])
  })
})

// answerClientError destroyed the connection at the refusal, or once its 400 was written: the bytes after it were
// met with a reset (ECONNRESET), which may drop the answer unread (found by bench/fuzz; the 400's: seed 2925387146
// of master 5005 on PostgreSQL, 8 of 30 replays, on Node 20 and on Node 24).
describe('a chunked body that breaks the parser, the client still sending', () => {
  let served: ServedApp
  beforeAll(async () => {
    served = await serveApp(memoryApp().options)
  })
  afterAll(() => served.close())

  it.each([
    [
      'behind an answer already begun (a 401 for a POST without a key) lets that answer end',
      [
        [
          0,
          'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Transfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\n',
        ],
        // The 401 is out by then, its body still being read; a chunk size that is no number, then more bytes.
        [100, 'zz\r\n'],
        [150, '"Rex"}\r\n'],
        [200, '0\r\n\r\n'],
      ],
      250,
      300,
      '401',
    ],
    [
      "before its request's answer has begun is answered 400",
      [
        // A key: no answer begins before the body is read; a chunk size that is no number breaks it, then more.
        [
          0,
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nContent-Type: application/json\r\n` +
            'Transfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nzz\r\n',
        ],
        [100, '"Rex"}\r\n'],
        [150, '0\r\n\r\n'],
      ],
      200,
      250,
      '400',
    ],
  ] as const)(
    '%s, then the connection closes as a lingering close, not a reset',
    async (_, parts, readAt, endAt, status) => {
      const { text, error } = await writeBeforeReading(served.port, parts, readAt, endAt)
      expect(error).toBeUndefined()
      expect(statusesOf(text)).toEqual([status])
      expect(text.toLowerCase()).toContain('\r\nconnection: close\r\n')
    },
  )
})

describe("answerClientError, a server's own clientError listener, for bytes that are no request of the app's", () => {
  // A plain node server: answerEveryRequest hands such bytes to the app (refused-request.ts), this one does not.
  let server: Server
  let port: number
  const handed: Array<string> = []
  beforeAll(async () => {
    server = createServer(
      { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 },
      (req, res) => {
        handed.push(`${req.method} ${req.url}`)
        // A request whose answer waits (a slow store), its body unread: node's timeout, not the app, answers it.
        if (req.url !== '/wait') res.end('served')
      },
    )
    server.on('clientError', answerClientError)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('reaches a client still sending a head over 16 KiB, then closes as a lingering close, not a reset', async () => {
    const piece = 'a'.repeat(4 * KIB)
    const parts: Array<readonly [number, string]> = [[0, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Pad: ']]
    // Refused past 16 KiB, at the fifth piece: six more arrive after the 400 is written.
    for (let i = 1; i <= 11; i++) parts.push([i * 20, piece])
    const { text, error } = await writeBeforeReading(port, parts, 300, 350)
    // answerClientError destroyed the connection once its 400 was written: the pieces after it were met with a
    // reset (ECONNRESET), which dropped the 400 unread.
    expect(error).toBeUndefined()
    expect(statusesOf(text)).toEqual(['400'])
    const [head = '', body = ''] = text.split('\r\n\r\n')
    expect(head.toLowerCase()).toContain('\r\nconnection: close')
    expect(Buffer.byteLength(body)).toBe(Number(/content-length: (\d+)/i.exec(head)?.[1]))
    expect(JSON.parse(body)).toMatchObject({ status: 400 })
  })

  // node's parser is not in error after a timeout: read on, it handed what came next to the app as a request.
  it.each([
    [
      'its head: the rest of it, come later, is no request',
      'GET /slow HTTP/1.1\r\nHost: x\r\n',
      '\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n',
      [],
    ],
    [
      "its request's body: a request sent behind it is not handed over",
      'POST /wait HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345',
      '67890POST /after HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
      ['POST /wait'],
    ],
  ])('closes at once a connection that timed out in %s', async (_, first, later, expected) => {
    handed.length = 0
    const { text } = await writeBeforeReading(
      port,
      [
        [0, first],
        [900, later],
      ],
      0,
      1_100,
      // A client that sends on after the server's end (else its system ends its side as that end comes).
      true,
    )
    expect(statusesOf(text)).toEqual(['400'])
    expect(text).toContain('did not arrive in time')
    expect(handed).toEqual(expected)
  })
})
