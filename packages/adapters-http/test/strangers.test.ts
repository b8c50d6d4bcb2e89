import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DOCS_PATH } from '../src/index.js'
import { BEARER, errorBodyOf, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

// Sends raw bytes on a new connection and collects everything the server writes until it closes.
const raw = (port: number, text: string, { endAfterWrite = false } = {}) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text)
      if (endAfterWrite) socket.end()
    })
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    setTimeout(() => {
      socket.destroy()
      resolve(answer)
    }, 2_000)
  })

describe('what a caller without a key, or a careless one, can make the service do', () => {
  let app: ServedApp
  beforeAll(async () => {
    app = await serveApp(memoryApp().options)
  })
  afterAll(() => app.close())

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'answers 404 for the docs asset named %s: inherited names are no assets',
    async (name) => {
      for (const path of [`${DOCS_PATH}/assets/5.35.0/${name}`, `${DOCS_PATH}/${name}`, `/${name}`]) {
        const answer = await app.send({ path })
        expect(answer.status).toBe(404)
        expect(errorBodyOf(answer).code).toBe('not_found')
      }
    },
  )

  it.each([
    ['401 (no key)', { 'Content-Type': 'application/json' }],
    ['415 (not JSON)', { Authorization: BEARER, 'Content-Type': 'text/plain' }],
  ])('closes the connection after a %s that leaves the body unread', async (_, headers) => {
    const answer = await app.send({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'Content-Length': '1000' },
      body: 'x'.repeat(1000),
    })
    expect([401, 415]).toContain(answer.status)
    expect(answer.headers.connection).toBe('close')
  })

  it('closes the connection after a 413 for a declared length over the limit, without reading it', async () => {
    const answer = await raw(
      app.port,
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
        `${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n{"name":`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(answer.toLowerCase()).toContain('connection: close')
  })

  it('keeps the connection of a request whose body it read', async () => {
    const answer = await app.post('{"name":"Rex","categoryId":1}')
    expect(answer.status).toBe(201)
    expect(answer.headers.connection).not.toBe('close')
  })

  it('answers a body that ends early with 400, never 500', async () => {
    const answer = await raw(
      app.port,
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
        `${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Rex"`,
      { endAfterWrite: true },
    )
    // The client half-closed: the answer may still reach it, and is never a server error.
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 400 /)
  })
})
