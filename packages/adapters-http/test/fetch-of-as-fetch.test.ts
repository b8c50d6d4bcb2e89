import Koa from 'koa'
import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fetchOf } from '../src/testing/index.js'

// The same listener served over a loopback socket to Node's own fetch, and in-process to fetchOf.
let seen: IncomingHttpHeaders = {}
const EMPTY_ANSWER: RequestListener = (_, res) => res.end()
let answer = EMPTY_ANSWER
const listener: RequestListener = (req, res) => {
  seen = req.headers
  answer(req, res)
}
const server = createServer(listener)
let origin = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
// Each test starts from the empty answer, whatever ran before it.
beforeEach(() => {
  answer = EMPTY_ANSWER
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const headersSent = async (send: typeof fetch, init?: RequestInit) => {
  await (await send(`${origin}/x`, init)).arrayBuffer()
  return seen
}

describe('fetchOf sends the header lines Node’s fetch sends', () => {
  it.each<[string, RequestInit | undefined]>([
    ['a GET', undefined],
    ['a POST of text', { method: 'POST', body: 'abc' }],
    ['a POST without a body', { method: 'POST' }],
    ['a PATCH of bytes', { method: 'PATCH', body: new Uint8Array([1, 2]) }],
    [
      'headers of the caller, fetch’s own among them',
      {
        headers: {
          Accept: 'application/json',
          'User-Agent': 'me',
          'Accept-Encoding': 'identity',
          'Accept-Language': 'fr',
          'Sec-Fetch-Mode': 'navigate',
          'Content-Length': '5',
          Connection: 'close',
          'X-Request-Id': 'r1',
        },
      },
    ],
  ])('for %s', async (_, init) => {
    expect(await headersSent(fetchOf(listener), init)).toEqual(await headersSent(fetch, init))
  })
})

describe('fetchOf gives the body as Node’s fetch gives it', () => {
  it.each<[string, string, Buffer]>([
    ['gzip', 'gzip', zlib.gzipSync('hi')],
    ['x-gzip', 'X-Gzip', zlib.gzipSync('hi')],
    ['deflate', 'deflate', zlib.deflateSync('hi')],
    ['raw deflate', 'deflate', zlib.deflateRawSync('hi')],
    ['brotli', 'br', zlib.brotliCompressSync('hi')],
    ['two codings', 'deflate, gzip', zlib.gzipSync(zlib.deflateSync('hi'))],
    ['an unknown coding (as sent)', 'gzip, zz', zlib.gzipSync('hi')],
    ['a coding named as a property of objects', '__proto__', Buffer.from('hi')],
    ['a gzip body cut short', 'gzip', zlib.gzipSync('hello world').subarray(0, 15)],
    ['an empty gzip body', 'gzip', Buffer.alloc(0)],
    ['bytes that are no gzip', 'gzip', Buffer.from('nope')],
  ])('of %s', async (_, coding, bytes) => {
    answer = (_req, res) => res.setHeader('Content-Encoding', coding).end(bytes)
    const read = async (send: typeof fetch) => {
      const res = await send(`${origin}/x`)
      const text = await res.text().catch((e: unknown) => e)
      return { encoding: res.headers.get('content-encoding'), text }
    }
    expect(await read(fetchOf(listener))).toEqual(await read(fetch))
  })

  it('fails as it does for more than five codings', async () => {
    answer = (_req, res) => res.setHeader('Content-Encoding', 'gzip,gzip,gzip,gzip,gzip,gzip').end('x')
    const failure = (send: typeof fetch) => send(`${origin}/x`).catch((e: unknown) => e)
    const [inProcess, wired] = await Promise.all([failure(fetchOf(listener)), failure(fetch)])
    const { message, cause } = wired as Error & { cause: Error }
    expect(inProcess).toBeInstanceOf(TypeError)
    expect(inProcess).toMatchObject({ message, cause: { message: cause.message } })
  })
})

describe('fetchOf, for an https URL', () => {
  it('makes the request look as https to Koa (protocol, secure, href), and http for http', async () => {
    const app = new Koa().use((ctx) => (ctx.body = [ctx.protocol, ctx.secure, ctx.href]))
    const fetch = fetchOf(app)
    expect(await (await fetch('https://pets.test/x')).json()).toEqual(['https', true, 'https://pets.test/x'])
    expect(await (await fetch('http://pets.test/x')).json()).toEqual(['http', false, 'http://pets.test/x'])
  })
})
