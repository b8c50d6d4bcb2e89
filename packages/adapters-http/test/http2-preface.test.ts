import { connect as connectHttp2, constants } from 'node:http2'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MOST_FRAMES } from '../src/connection/http2-preface.js'
import { LINGER_MS } from '../src/connection/linger.js'
import type { ObservedRequest } from '../src/index.js'
import { BEARER, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
const HTTP_1_1_REQUIRED = 0xd

// A frame of RFC 9113: its 9-byte header, then its payload.
const frame = (type: number, flags: number, stream: number, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9)
  header.writeUIntBE(payload.length, 0, 3)
  header[3] = type
  header[4] = flags
  header.writeUInt32BE(stream, 5)
  return Buffer.concat([header, payload])
}
const SETTINGS = frame(0x4, 0, 0, Buffer.from([0, 3, 0, 0, 0, 100]))
const WINDOW_UPDATE = frame(0x8, 0, 0, Buffer.from([0, 0xff, 0, 1]))
// A HEADERS frame (END_STREAM, END_HEADERS) of HPACK's static table: GET, http, / (a request for /).
const headersOf = (stream: number) => frame(0x1, 0x5, stream, Buffer.from([0x82, 0x86, 0x84]))

type Frame = { type: number; flags: number; stream: number; payload: Buffer }
const framesIn = (bytes: Buffer): Array<Frame> => {
  const frames: Array<Frame> = []
  for (let at = 0; at + 9 <= bytes.length;) {
    const length = bytes.readUIntBE(at, 3)
    frames.push({
      type: bytes[at + 3]!,
      flags: bytes[at + 4]!,
      stream: bytes.readUInt32BE(at + 5),
      payload: bytes.subarray(at + 9, at + 9 + length),
    })
    at += 9 + length
  }
  return frames
}
const codeOf = (payload: Buffer) => payload.readUInt32BE(payload.length === 4 ? 0 : 4)

describe("HTTP/2's connection preface, from a client with prior knowledge", () => {
  let served: ServedApp
  const seen: Array<ObservedRequest> = []
  beforeAll(async () => {
    served = await serveApp({ ...memoryApp().options, operations: { observe: (r) => void seen.push(r) } })
  })
  afterAll(() => served.close())

  // Writes each part on a new connection (50 ms apart), ends its side `endAfterMs` after the last unless
  // undefined, and says what came back and when the server closed.
  const exchange = (parts: ReadonlyArray<string | Buffer>, endAfterMs?: number) =>
    new Promise<{ bytes: Buffer; closedAfterMs: number; sawEnd: boolean }>((resolve) => {
      const socket = connect({ port: served.port, host: '127.0.0.1', allowHalfOpen: true })
      const started = Date.now()
      const chunks: Array<Buffer> = []
      let sawEnd = false
      parts.forEach((part, i) => setTimeout(() => socket.write(part), 50 * i))
      if (endAfterMs !== undefined) setTimeout(() => socket.end(), 50 * parts.length + endAfterMs)
      socket.on('data', (chunk: Buffer) => chunks.push(chunk))
      socket.on('end', () => {
        sawEnd = true
        socket.end()
      })
      socket.on('error', () => {})
      socket.on('close', () =>
        resolve({ bytes: Buffer.concat(chunks), closedAfterMs: Date.now() - started, sawEnd }),
      )
    })

  it("is answered by node's HTTP/2 client's own words: the stream reset with HTTP_1_1_REQUIRED", async () => {
    const session = connectHttp2(`http://127.0.0.1:${served.port}`)
    session.on('error', () => {})
    const ended = await new Promise<{ code: number; error: string | undefined }>((resolve) => {
      const stream = session.request({ ':path': '/v1/pets', authorization: BEARER })
      let error: string | undefined
      stream.on('error', (e: Error) => (error = e.message))
      stream.on('close', () => resolve({ code: stream.rstCode ?? -1, error }))
      stream.resume()
    })
    session.close()
    expect(ended).toEqual({
      code: constants.NGHTTP2_HTTP_1_1_REQUIRED,
      error: 'Stream closed with error code NGHTTP2_HTTP_1_1_REQUIRED',
    })
  })

  it('sends its SETTINGS, resets each stream opened, then, at the end, GOAWAY: no HTTP/1.1, no request', async () => {
    const before = seen.length
    // The preface cut in two, then frames opening streams 1 and 3 in the next packet.
    const { bytes, sawEnd } = await exchange(
      [
        PREFACE.slice(0, 10),
        PREFACE.slice(10),
        Buffer.concat([SETTINGS, WINDOW_UPDATE, headersOf(1), headersOf(3)]),
      ],
      100,
    )
    expect(bytes.toString('latin1')).not.toMatch(/HTTP\/1\.1 \d{3} /)
    const frames = framesIn(bytes)
    // The server's SETTINGS, its ACK of the client's, the resets, GOAWAY.
    expect(frames.map(({ type, flags, stream }) => [type, flags, stream])).toEqual([
      [0x4, 0, 0],
      [0x4, 1, 0],
      [0x3, 0, 1],
      [0x3, 0, 3],
      [0x7, 0, 0],
    ])
    expect(frames.slice(0, 2).map(({ payload }) => payload.length)).toEqual([0, 0])
    expect(frames.slice(2).map(({ payload }) => codeOf(payload))).toEqual([
      HTTP_1_1_REQUIRED,
      HTTP_1_1_REQUIRED,
      HTTP_1_1_REQUIRED,
    ])
    // GOAWAY: no stream processed, and why.
    expect(frames[4]!.payload.readUInt32BE(0)).toBe(0)
    expect(frames[4]!.payload.subarray(8).toString()).toBe('This server speaks HTTP/1.1 only.')
    expect(sawEnd).toBe(true)
    expect(seen.length).toBe(before)
  })

  it('resets a stream opened after more than 16 KiB of frames: the body of one before it (DATA) is skipped, not read', async () => {
    // As node's client sends a request on a session whose last request had a 32 KiB body, before reading.
    const data = frame(0x0, 0, 1, Buffer.alloc(16_384, 'x'))
    const { bytes } = await exchange(
      [Buffer.concat([Buffer.from(PREFACE), SETTINGS, headersOf(1), data, data, headersOf(3)])],
      100,
    )
    expect(framesIn(bytes).map(({ type, stream }) => [type, stream])).toEqual([
      [0x4, 0],
      [0x4, 0],
      [0x3, 1],
      [0x3, 3],
      [0x7, 0],
    ])
  })

  it(`reads its first ${MOST_FRAMES} frames, no more: the streams opened after them get GOAWAY alone`, async () => {
    const opened = Array.from({ length: MOST_FRAMES + 50 }, (_, i) => headersOf(2 * i + 1))
    const { bytes, sawEnd } = await exchange(
      [Buffer.concat([Buffer.from(PREFACE), SETTINGS, ...opened])],
      100,
    )
    const frames = framesIn(bytes)
    // SETTINGS, the ACK, a reset for each stream of the frames read (SETTINGS was one), GOAWAY.
    expect(frames.map(({ type }) => type)).toEqual([
      0x4,
      0x4,
      ...Array<number>(MOST_FRAMES - 1).fill(0x3),
      0x7,
    ])
    expect(frames.at(-2)?.stream).toBe(2 * (MOST_FRAMES - 1) - 1)
    expect(sawEnd).toBe(true)
  })

  it(`says GOAWAY and closes ${LINGER_MS / 1000} s after, to a client that never ends its side`, async () => {
    const { bytes, closedAfterMs } = await exchange([
      Buffer.concat([Buffer.from(PREFACE), SETTINGS, headersOf(1)]),
    ])
    expect(framesIn(bytes).map(({ type }) => type)).toEqual([0x4, 0x4, 0x3, 0x7])
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_MS - 100)
    expect(closedAfterMs).toBeLessThan(LINGER_MS + 1_500)
  }, 10_000)

  it('is no first word behind a request under way: that request is answered over HTTP/1.1, then the close', async () => {
    const { bytes } = await exchange(
      [`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n${PREFACE}`],
      100,
    )
    const text = bytes.toString('latin1')
    expect(text.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 '])
    expect(text).toContain('\r\nConnection: close\r\n')
  })
})
