import { describe, expect, it } from 'vitest'
import { expectError } from './expect-error.js'
import { useService, type StartService } from './harness.js'

const allowOf = (res: Response) =>
  (res.headers.get('allow') ?? '')
    .split(',')
    .map((method) => method.trim())
    .sort()

/** CONTRACT: routing after authentication: 404 for unknown paths, 405 with Allow, 501 for orders. */
export const describeErrorsAndRouting = (start: StartService) =>
  describe('routing and errors', () => {
    const svc = useService(start)

    it('GET /v1/store/orders answers 501 not_implemented', async () => {
      await expectError(await svc().authed('/v1/store/orders'), 501, 'not_implemented')
    })

    it('HEAD /v1/store/orders answers 501 without a body', async () => {
      const res = await svc().authed('/v1/store/orders', { method: 'HEAD' })
      expect(res.status).toBe(501)
      expect(await res.text()).toBe('')
    })

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
      '%s /v1/store/orders answers 405 method_not_allowed with Allow: GET, HEAD',
      async (method) => {
        const res = await svc().authed('/v1/store/orders', { method })
        await expectError(res, 405, 'method_not_allowed')
        expect(allowOf(res)).toEqual(['GET', 'HEAD'])
      },
    )

    it.each(['PUT', 'PATCH', 'DELETE'])(
      '%s /v1/pets answers 405 method_not_allowed with Allow listing GET, HEAD and POST',
      async (method) => {
        const res = await svc().authed('/v1/pets', { method })
        await expectError(res, 405, 'method_not_allowed')
        expect(allowOf(res)).toEqual(['GET', 'HEAD', 'POST'])
      },
    )

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
      '%s /v1/pets/{petId} answers 405 method_not_allowed with Allow: GET, HEAD',
      async (method) => {
        const res = await svc().authed('/v1/pets/1', { method })
        await expectError(res, 405, 'method_not_allowed')
        expect(allowOf(res)).toEqual(['GET', 'HEAD'])
      },
    )

    it('a method not allowed is reported before an unsupported media type', async () => {
      const res = await svc().authed('/v1/pets', {
        method: 'PUT',
        headers: { 'Content-Type': 'text/plain' },
        body: 'x',
      })
      await expectError(res, 405, 'method_not_allowed')
    })

    it('an unknown path is reported before an unsupported media type', async () => {
      const res = await svc().authed('/v1/animals', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'x',
      })
      await expectError(res, 404, 'not_found')
    })

    it.each(['/v1', '/v1/', '/v1/nothing-here', '/v1/pets/1/owner', '/v1/store', '/v1/store/orders/1'])(
      'an unknown path under /v1 (%s) answers 404 not_found after authentication',
      async (path) => {
        await expectError(await svc().authed(path), 404, 'not_found')
      },
    )

    it.each(['/', '/nothing-here', '/pets', '/v2/pets', '/v1pets'])(
      'an unknown path outside /v1 (%s) answers 404 not_found without a key',
      async (path) => {
        await expectError(await svc().request(path), 404, 'not_found')
      },
    )

    it('GET /healthz answers 200 without a key', async () => {
      const res = await svc().request('/healthz')
      expect(res.status).toBe(200)
    })
  })
