import { IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BEARER, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

// A body reaches the handler in one of two ways: node has parsed the whole message before the
// handler runs (headers and body in one packet, as most clients send them: read at once), or the
// body is still arriving (read as it comes, within the body timeout). Both must answer alike.

const HEAD = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nContent-Type: application/json\r\n`

/**
 * Writes `parts` on one connection, `pauseMs` apart, and collects what the server writes until
 * `answers` status lines have arrived (or the server closes, or 3 s pass).
 */
const exchange = (port: number, parts: ReadonlyArray<string>, answers = 1, pauseMs = 0) =>
  new Promise<string>((resolve, reject) => {
    let text = ''
    const done = () => (socket.destroy(), resolve(text))
    const socket = connect(port, '127.0.0.1', () => {
      void (async () => {
        for (const [i, part] of parts.entries()) {
          if (i > 0 && pauseMs > 0) await sleep(pauseMs)
          if (!socket.destroyed) socket.write(part)
        }
      })()
    })
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      // Each answer of these tests is complete once its JSON body's closing brace has arrived.
      if ((text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length >= answers && text.trimEnd().endsWith('}')) done()
    })
    socket.on('end', done)
    socket.on('error', reject)
    setTimeout(done, 3_000)
  })

const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
const withLength = (body: string) => `${HEAD}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
const chunked = (body: string) =>
  `${HEAD}Transfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`

describe('a request body, whether it arrived with its headers or after them', () => {
  let app: ServedApp
  beforeAll(async () => {
    app = await serveApp(memoryApp().options)
  })
  afterAll(() => app.close())

  const pet = (name: string) => JSON.stringify({ name, categoryId: 2, status: 'sold' })

  it('adds the pet when the body came in the same write as the headers', async () => {
    const text = await exchange(app.port, [withLength(pet('Together'))])
    expect(statusesOf(text)).toEqual([201])
    expect(text).toContain('"name":"Together"')
  })

  it('adds the pet when the body comes after the headers', async () => {
    const body = pet('Later')
    const [head, rest] = [withLength(body).slice(0, -body.length), body]
    const text = await exchange(app.port, [head, rest.slice(0, 5), rest.slice(5)], 1, 50)
    expect(statusesOf(text)).toEqual([201])
    expect(text).toContain('"name":"Later"')
  })

  // How many 'data' listeners the requests of `run` were given: a body that came with its headers
  // is taken at the next turn of the event loop, whole, without one (ARCHITECTURE.md, 'Made by hand,
  // on purpose', row "body reader").
  const dataListenersDuring = async (run: () => Promise<unknown>): Promise<number> => {
    let count = 0
    const proto = IncomingMessage.prototype as unknown as Record<string, unknown>
    proto['on'] = function (
      this: IncomingMessage,
      event: string,
      listener: (...args: Array<unknown>) => void,
    ) {
      if (event === 'data') count++
      return Readable.prototype.on.call(this, event, listener)
    }
    try {
      await run()
    } finally {
      delete proto['on']
    }
    return count
  }

  it('takes a body that came with its headers whole, without listening for it', async () => {
    const together = await dataListenersDuring(async () => {
      const text = await exchange(app.port, [withLength(pet('Whole'))])
      expect(statusesOf(text)).toEqual([201])
    })
    expect(together).toBe(0)
    const body = pet('Apart')
    const apart = await dataListenersDuring(async () => {
      // Long enough apart that even a busy test run has looked for the body before it comes.
      const text = await exchange(app.port, [withLength(body).slice(0, -body.length), body], 1, 200)
      expect(statusesOf(text)).toEqual([201])
    })
    expect(apart).toBe(1)
  })

  it('reads a whole chunked body, and two requests sent at once on one connection', async () => {
    const text = await exchange(app.port, [chunked(pet('Chunked')) + withLength(pet('Second'))], 2)
    expect(statusesOf(text)).toEqual([201, 201])
    expect(text).toContain('"name":"Chunked"')
    expect(text).toContain('"name":"Second"')
    expect(text.toLowerCase()).not.toContain('connection: close')
  })

  it('answers 413 and closes the connection for a whole chunked body over 64 KiB', async () => {
    const text = await exchange(app.port, [chunked(JSON.stringify({ name: 'x'.repeat(70_000) }))])
    expect(statusesOf(text)).toEqual([413])
    expect(text.toLowerCase()).toContain('connection: close')
  })

  // The contract orders 413 before 400: a body node's parser handed over past 64 KiB is too large, whatever
  // bytes the parser refuses after it (here a trailer line with no name). Found by bench/fuzz on Node 24 (seed
  // 4147280652 of master 5005): 400 there, 413 on Node 20.
  it('answers 413 for a chunked body over 64 KiB whose trailer node refuses, sent in one write', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(65_600) })
    const bytes = `${HEAD}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n: x\r\n\r\n`
    const text = await exchange(app.port, [bytes])
    expect(statusesOf(text)).toEqual([413])
    expect(text).toContain('payload_too_large')
    expect(text.toLowerCase()).toContain('connection: close')
  })

  it.each([
    ['an empty body', withLength(''), 'empty'],
    ['a body that is not JSON', withLength('{"name":'), 'not valid JSON'],
    [
      'a key that reaches a prototype, spelled with an escape',
      withLength('{"\\u005f_proto__":{}}'),
      '__proto__',
    ],
  ])('answers 400 for %s, arrived with its headers', async (_, request, reason) => {
    const text = await exchange(app.port, [request])
    expect(statusesOf(text)).toEqual([400])
    expect(text).toContain(reason)
  })
})
