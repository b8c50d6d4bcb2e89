import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawExchange, rawExchangeUnchecked } from './http/raw-http.js'
import { startTestService, TEST_KEYS, type TestService } from './support/test-service.js'

const AUTH = `Authorization: Bearer ${TEST_KEYS[0]}\r\n`

// What startServer adds around the app: node's own limits, answered with Error bodies.
describe('limits of the running service', () => {
  let svc: TestService
  beforeAll(async () => {
    svc = await startTestService()
  })
  afterAll(async () => {
    await svc.close()
  })

  it('answers 400 validation_failed with an Error body when the headers pass 16 KiB', async () => {
    const res = await rawExchange(
      svc.url,
      `GET /v1/pets HTTP/1.1\r\nHost: localhost\r\n${AUTH}X-Filler: ${'x'.repeat(17 * 1024)}\r\n\r\n`,
    )
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 'validation_failed', status: 400 })
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it('answers 400 validation_failed for a URL over 4 KiB, and 401 to it without a key', async () => {
    const path = `/v1/pets?limit=1&pad=${'p'.repeat(4200)}`
    const res = await rawExchange(svc.url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${AUTH}\r\n`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { message: string }).message).toContain('at most 4096 bytes')
    const anonymous = await rawExchange(svc.url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    expect(anonymous.status).toBe(401)
  })

  it("answers an HTTP/1.1 request without Host 400 with an Error body, not node's bare status line", async () => {
    const res = await rawExchange(svc.url, `GET /v1/pets HTTP/1.1\r\n${AUTH}\r\n`)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 'validation_failed', status: 400 })
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it("serves a request whose Expect it does not know, instead of node's bare 417", async () => {
    const body = '{"name":"Rex","categoryId":1}'
    const post = (auth: string) =>
      rawExchange(
        svc.url,
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\n${auth}` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      )
    const stranger = await post('')
    expect(stranger.status).toBe(401)
    expect(await stranger.json()).toMatchObject({ code: 'unauthorized' })
    expect((await post(AUTH)).status).toBe(201)
  })

  it('answers CONNECT as a method it does not serve (405 with Allow), where node would close without a word', async () => {
    const res = await rawExchange(svc.url, `CONNECT /v1/pets HTTP/1.1\r\nHost: localhost\r\n${AUTH}\r\n`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST')
    expect(res.headers.get('connection')).toBe('close')
    expect(await res.json()).toMatchObject({ code: 'method_not_allowed' })
    const stranger = await rawExchange(svc.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(stranger.status).toBe(404)
  })

  it('answers the same on the listener of METRICS_PORT', async () => {
    const metrics = await startTestService({ env: { METRICS_PORT: '0' } })
    try {
      const url = metrics.running.metricsUrl!
      const exchange = (text: string) => rawExchangeUnchecked(url, text)
      expect((await exchange('GET /metrics HTTP/1.1\r\n\r\n')).status).toBe(400)
      expect((await exchange('CONNECT /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n')).status).toBe(405)
      const expecting = await exchange('GET /metrics HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\n\r\n')
      expect(expecting.status).toBe(200)
    } finally {
      await metrics.close()
    }
  })

  it.each(['/v1/pets', '/v1/nothing', '/healthz'])(
    'sends nosniff and no-store, and no X-Powered-By, on %s',
    async (path) => {
      const res = await fetch(`${svc.url}${path}`, { headers: { Authorization: `Bearer ${TEST_KEYS[0]}` } })
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-powered-by')).toBeNull()
    },
  )
})
