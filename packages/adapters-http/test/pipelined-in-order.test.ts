import type { Authenticator } from '@pets/domain'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_PIPELINED } from '../src/index.js'
import { BEARER, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

// Writes `count` GETs on one connection at once, reads everything until it closes or goes quiet.
const pipeline = (port: number, count: number, { stopAfterMs = 1_500 } = {}) =>
  new Promise<{ text: string; closedByServer: boolean }>((resolve) => {
    const requests = Array.from(
      { length: count },
      (_, i) =>
        `GET /v1/pets?limit=${(i % 100) + 1} HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nX-Request-Id: r${i}\r\n\r\n`,
    ).join('')
    const socket = connect(port, '127.0.0.1', () => socket.write(requests))
    let text = ''
    let closedByServer = false
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      closedByServer = true
      resolve({ text, closedByServer })
    })
    setTimeout(() => {
      socket.destroy()
      resolve({ text, closedByServer })
    }, stopAfterMs)
  })

describe('pipelined requests, one connection', () => {
  let served: ServedApp
  let running = 0
  let most = 0
  beforeAll(async () => {
    const app = memoryApp()
    const { authenticator } = app.options
    // Each request takes a few ms in the app: pipelined ones would overlap if they were all started at once.
    const slow: Authenticator = {
      authenticate: (key) => async () => {
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 3))
        running--
        return authenticator.authenticate(key)()
      },
    }
    served = await serveApp({ ...app.options, authenticator: slow })
  })
  afterAll(() => served.close())

  it('are served one at a time, in their order, each answered', async () => {
    most = 0
    const count = MAX_PIPELINED + 1
    const { text } = await pipeline(served.port, count)
    const ids = [...text.matchAll(/\r\nx-request-id: (r\d+)\r\n/gi)].map((m) => m[1])
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => `r${i}`))
    expect(text.match(/HTTP\/1\.1 \d{3} /g)).toEqual(Array(count).fill('HTTP/1.1 200 '))
    expect(most).toBe(1)
  })

  it(`closes a connection with more than ${MAX_PIPELINED} requests waiting, and serves the next one`, async () => {
    const { text, closedByServer } = await pipeline(served.port, 500, { stopAfterMs: 5_000 })
    expect(closedByServer).toBe(true)
    // Whatever was answered before the close was answered whole and in order, never past the bound.
    const answered = text.match(/HTTP\/1\.1 200 /g) ?? []
    expect(answered.length).toBeLessThanOrEqual(MAX_PIPELINED + 1)
    expect((await served.send({ path: '/v1/pets', headers: { Authorization: BEARER } })).status).toBe(200)
  })
})
