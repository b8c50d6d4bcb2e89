import { describe, expect, it } from 'vitest'
import { TEST_KEYS } from '../support/test-service.js'
import { expectError } from './expect-error.js'
import { useService, type StartService } from './harness.js'

const CHALLENGE = 'Bearer realm="animal-store"'
const INVALID_TOKEN = 'Bearer realm="animal-store", error="invalid_token"'
const JSON_TYPE = { 'Content-Type': 'application/json' }

// Requests that, with a valid key, would get 404, 405, 501, 400, 415 or 413.
const WOULD_FAIL_LATER: ReadonlyArray<{ what: string; path: string; init?: RequestInit }> = [
  { what: 'an unknown path under /v1 (404)', path: '/v1/nothing-here' },
  { what: '/v1 itself (404)', path: '/v1' },
  { what: 'an unknown pet id (404)', path: '/v1/pets/9007199254740991' },
  { what: 'DELETE /v1/pets (405)', path: '/v1/pets', init: { method: 'DELETE' } },
  { what: 'POST /v1/store/orders (405)', path: '/v1/store/orders', init: { method: 'POST' } },
  { what: 'GET /v1/store/orders (501)', path: '/v1/store/orders' },
  { what: 'a bad limit (400)', path: '/v1/pets?limit=abc' },
  { what: 'a bad pet id (400)', path: '/v1/pets/abc' },
  {
    what: 'an invalid body (400)',
    path: '/v1/pets',
    init: { method: 'POST', headers: JSON_TYPE, body: '{}' },
  },
  {
    what: 'a text/plain body (415)',
    path: '/v1/pets',
    init: { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'Rex' },
  },
  {
    what: 'a body over 64 KiB (413)',
    path: '/v1/pets',
    init: { method: 'POST', headers: JSON_TYPE, body: `{"name":"Rex","categoryId":1}${' '.repeat(70_000)}` },
  },
]

/** CONTRACT: bearer authentication on every path under /v1, before anything else. */
export const describeAuthentication = (start: StartService) =>
  describe('authentication', () => {
    const svc = useService(start)
    const withAuthorization = (authorization: string | undefined, path = '/v1/pets') =>
      svc().request(path, authorization === undefined ? {} : { headers: { Authorization: authorization } })

    it.each([
      { what: 'without an Authorization header', authorization: undefined },
      { what: 'with another scheme (Basic)', authorization: 'Basic dGVzdC1rZXktb25lOg==' },
      { what: 'with "Bearer " and an empty key', authorization: 'Bearer ' },
      { what: 'with "Bearer" and no key', authorization: 'Bearer' },
    ])(
      'a request $what gets 401 unauthorized and a challenge without an error code',
      async ({ authorization }) => {
        const res = await withAuthorization(authorization)
        await expectError(res, 401, 'unauthorized')
        expect(res.headers.get('www-authenticate')).toBe(CHALLENGE)
      },
    )

    it.each([
      { what: 'an unknown key', authorization: 'Bearer not-a-key-of-this-service' },
      { what: 'a known key in other letter case', authorization: `Bearer ${TEST_KEYS[0].toUpperCase()}` },
      { what: 'a known key with more after it', authorization: `Bearer ${TEST_KEYS[0]} ${TEST_KEYS[1]}` },
    ])('a request with $what gets 401 unauthorized and error="invalid_token"', async ({ authorization }) => {
      const res = await withAuthorization(authorization)
      await expectError(res, 401, 'unauthorized')
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN)
    })

    it.each([
      { what: 'the first test key', authorization: `Bearer ${TEST_KEYS[0]}` },
      { what: 'the second test key', authorization: `Bearer ${TEST_KEYS[1]}` },
      { what: 'the scheme in lower case', authorization: `bearer ${TEST_KEYS[0]}` },
      { what: 'the scheme in upper case', authorization: `BEARER ${TEST_KEYS[1]}` },
      { what: 'several spaces after the scheme', authorization: `Bearer    ${TEST_KEYS[0]}` },
    ])('a request with $what is served', async ({ authorization }) => {
      const res = await withAuthorization(authorization)
      expect(res.status, await res.text()).toBe(200)
      expect(res.headers.get('www-authenticate')).toBeNull()
    })

    it('never echoes the key that was sent in the 401 body', async () => {
      const key = 'sk-live-0123456789abcdef'
      const { message } = await expectError(await withAuthorization(`Bearer ${key}`), 401, 'unauthorized')
      expect(message).not.toContain(key)
      expect(message).not.toContain('0123456789abcdef')
    })

    it.each(WOULD_FAIL_LATER)(
      'authentication comes first: $what without a key gets 401',
      async ({ path, init }) => {
        const res = await svc().request(path, init ?? {})
        await expectError(res, 401, 'unauthorized')
        expect(res.headers.get('www-authenticate')).toBe(CHALLENGE)
        expect(res.headers.get('allow')).toBeNull()
      },
    )

    it('authentication comes first: a request with an unknown key to an unknown path gets 401', async () => {
      const res = await withAuthorization('Bearer not-a-key', '/v1/nothing-here')
      await expectError(res, 401, 'unauthorized')
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN)
    })

    it('a 401 for GET /v1/pets/{petId} carries no Deprecation, Sunset or Link header', async () => {
      const res = await withAuthorization(undefined, '/v1/pets/1')
      await expectError(res, 401, 'unauthorized')
      expect(res.headers.get('deprecation')).toBeNull()
      expect(res.headers.get('sunset')).toBeNull()
      expect(res.headers.get('link')).toBeNull()
    })

    it('answers 401 to every key that is not valid, however many came before, and serves a valid key from the same client', async () => {
      // An outside suite's bad-key checks, with the default limits: keys checked in memory are
      // never limited for other requests' failures (README, "Hostile input").
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 25; i++) {
          const res = await withAuthorization(`Bearer not-a-key-${round}-${i}`)
          await expectError(res, 401, 'unauthorized')
        }
        const served = await withAuthorization(`Bearer ${TEST_KEYS[round % 2]}`)
        expect(served.status, await served.text()).toBe(200)
      }
    })

    it('GET /healthz needs no key, and ignores an invalid one', async () => {
      expect((await withAuthorization(undefined, '/healthz')).status).toBe(200)
      expect((await withAuthorization('Bearer not-a-key', '/healthz')).status).toBe(200)
    })
  })
