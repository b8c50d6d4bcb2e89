import { request } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BEARER, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

const MIB = 1024 * 1024
const json = { 'Content-Type': 'application/json' }

// Sends the head of a POST that expects 100-continue, and what arrives within `waitMs` (the body never sent).
const headOnly = (port: number, headers: string, waitMs = 500) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')))
    socket.on('error', () => {})
    socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n${headers}\r\n`)
    setTimeout(() => {
      socket.destroy()
      resolve(answer)
    }, waitMs)
  })

// node's own client, as a careful uploader uses it: the body goes out on 100 Continue, and only then.
const upload = (port: number, body: Buffer | string, headers: Record<string, string>) =>
  new Promise<string>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/pets',
        agent: false,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), Expect: '100-continue' },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(String(res.statusCode)))
        res.on('error', (error: NodeJS.ErrnoException) => resolve(`response ${error.code ?? error.message}`))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    req.on('continue', () => req.end(body))
  })

describe('a request that expects 100-continue (RFC 9110 section 10.1.1)', () => {
  let served: ServedApp
  beforeAll(async () => {
    served = await serveApp(memoryApp().options)
  })
  afterAll(() => served.close())

  it.each([
    ['413', `Authorization: ${BEARER}\r\nContent-Type: application/json\r\nContent-Length: ${20 * MIB}\r\n`],
    ['401', `Content-Type: application/json\r\nContent-Length: 100\r\n`],
    ['415', `Authorization: ${BEARER}\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n`],
  ])('is answered %s without 100 Continue, so its body is never sent', async (status, headers) => {
    const answer = await headOnly(served.port, headers)
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
    expect(answer).not.toContain('100 Continue')
  })

  it('gets 100 Continue when its body is to be read, then its answer', async () => {
    expect(
      await upload(served.port, '{"name":"Rex","categoryId":1}', { ...json, Authorization: BEARER }),
    ).toBe('201')
    expect(
      await headOnly(
        served.port,
        `Authorization: ${BEARER}\r\n${'Content-Type: application/json\r\n'}Content-Length: 30\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/)
  })

  it('closes the connection after an answer given before its body was asked for', async () => {
    const answer = await headOnly(served.port, `Content-Type: application/json\r\nContent-Length: 100\r\n`)
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    expect(answer).toContain('\r\nConnection: close\r\n')
  })

  // RFC 9110 section 10.1.1: a client MUST NOT send the expectation without content; a server keeps the
  // connection all the same, as nothing of the request is still to come (node would close it: no 100 went out).
  it.each([
    [
      'POST, Content-Length: 0, no key',
      'POST',
      'Content-Type: application/json\r\nContent-Length: 0\r\n',
      401,
    ],
    [
      'POST, Content-Length: 0',
      'POST',
      `Authorization: ${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 0\r\n`,
      400,
    ],
    ['GET, no key', 'GET', '', 401],
    ['GET', 'GET', `Authorization: ${BEARER}\r\n`, 200],
  ])(
    'keeps the connection of one without content, with no 100 Continue (%s)',
    async (_, method, headers, status) => {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(served.port, '127.0.0.1')
        let text = ''
        socket.on('error', () => {})
        socket.on('data', (data: Buffer) => {
          text += data.toString('latin1')
          if ((text.match(/HTTP\/1\.1 [2-5]\d\d /g) ?? []).length === 2) socket.end()
        })
        socket.on('close', () => resolve(text))
        socket.write(`${method} /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n${headers}\r\n`)
        // The next request on the same connection, once the first is answered.
        socket.once('data', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'))
      })
      expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual([`HTTP/1.1 ${status} `, 'HTTP/1.1 200 '])
      expect(answer).not.toContain('Connection: close')
    },
  )

  it('reads its 413 for a body far over the limit, never a reset', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        await upload(served.port, Buffer.alloc(20 * MIB, 0x20), { ...json, Authorization: BEARER }),
      ).toBe('413')
  })
})
