import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'absolute-targets-e2e-key'

// Sends `text` on a connection of its own and resolves with all it read once the service closes it.
const exchange = (url: string, text: string) =>
  new Promise<string>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(text))
    let read = ''
    socket.on('data', (chunk: Buffer) => (read += chunk.toString('latin1')))
    socket.on('close', () => resolve(read))
    socket.on('error', () => {})
  })

describe('request targets that node:url.parse finds invalid, or that parseurl hands to it, sent to the built service', () => {
  let svc: ChildService
  let stderr = ''
  beforeAll(async () => {
    svc = await startTestService({ mode: 'child', env: { API_KEYS: KEY, SHUTDOWN_DELAY_MS: '0' } })
    svc.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  })
  afterAll(() => svc?.stop())

  it('are answered as any target, and leave its standard error empty (logs are JSON lines on stdout)', async () => {
    const answers: Array<string> = []
    for (const target of [
      'http://a:b/v1/pets',
      '//u@a:b/v1/pets#f',
      'ws://x:99999[::1]:443',
      'http://x:8o/healthz',
      '/v1/pets?limit=1#f',
    ])
      answers.push(
        (
          await exchange(
            svc.url,
            `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
          )
        ).slice(0, 12),
      )
    // node's url.parse, under Koa's ctx.path, printed "[DEP0170] DeprecationWarning: The URL http://a:b/v1/pets
    // is invalid" once a process (written at once: in by now), and read its path as /:b/v1/pets, a 404 (found by
    // bench/fuzz, with the third target). A target that is no URL is answered 400, as `http://[%]/` was. A path
    // with a fragment went through url.parse too (parseurl's fallback), which prints "[DEP0169]
    // DeprecationWarning: `url.parse()` behavior is not standardized" on Node 24 (the fuzz smoke, on Node 24).
    expect(stderr).toBe('')
    expect(answers).toEqual(['HTTP/1.1 400', 'HTTP/1.1 404', 'HTTP/1.1 400', 'HTTP/1.1 400', 'HTTP/1.1 200'])
  })
})
