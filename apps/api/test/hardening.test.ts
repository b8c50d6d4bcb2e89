import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawExchange } from './http/raw-http.js'
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
