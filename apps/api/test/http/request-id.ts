import { describe, expect, it } from 'vitest'
import { TEST_KEYS } from '../support/test-service.js'
import { useService, type StartService } from './harness.js'
import { rawExchange } from './raw-http.js'

const VISIBLE_ASCII = /^[\x21-\x7E]{1,128}$/
// Every visible ASCII character, 128 in all: the longest acceptable id.
const LONGEST_ID = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x21 + (i % 94))).join('')
const AUTH = { Authorization: `Bearer ${TEST_KEYS[0]}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }

const REQUESTS: ReadonlyArray<{ status: number; path: string; init: RequestInit }> = [
  { status: 200, path: '/v1/pets', init: { headers: AUTH } },
  { status: 200, path: '/healthz', init: {} },
  {
    status: 201,
    path: '/v1/pets',
    init: { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body: '{"name":"Rex","categoryId":1}' },
  },
  { status: 400, path: '/v1/pets?limit=0', init: { headers: AUTH } },
  { status: 401, path: '/v1/pets', init: {} },
  { status: 404, path: '/v1/pets/9007199254740991', init: { headers: AUTH } },
  { status: 404, path: '/nothing-here', init: {} },
  { status: 405, path: '/v1/pets', init: { method: 'DELETE', headers: AUTH } },
  {
    status: 413,
    path: '/v1/pets',
    init: { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body: ' '.repeat(70_000) },
  },
  { status: 415, path: '/v1/pets', init: { method: 'POST', headers: AUTH, body: 'Rex' } },
  { status: 501, path: '/v1/store/orders', init: { headers: AUTH } },
]

/** CONTRACT: every response carries X-Request-Id: the caller's if acceptable, else a new one. */
export const describeRequestId = (start: StartService) =>
  describe('X-Request-Id', () => {
    const svc = useService(start)
    const send = (path: string, init: RequestInit, requestId?: string) =>
      svc().request(path, {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          ...(requestId === undefined ? {} : { 'X-Request-Id': requestId }),
        },
      })

    it.each(REQUESTS)(
      'a valid caller id comes back on a $status response to $path',
      async ({ status, path, init }) => {
        const res = await send(path, init, 'caller-id-42')
        expect(res.status).toBe(status)
        expect(res.headers.get('x-request-id')).toBe('caller-id-42')
      },
    )

    it.each(REQUESTS)(
      'without a caller id, a $status response to $path carries a fresh id',
      async ({ status, path, init }) => {
        const res = await send(path, init)
        expect(res.status).toBe(status)
        expect(res.headers.get('x-request-id')).toMatch(VISIBLE_ASCII)
      },
    )

    it('a caller id of 128 visible ASCII characters comes back unchanged', async () => {
      const res = await send('/v1/pets', { headers: AUTH }, LONGEST_ID)
      expect(res.headers.get('x-request-id')).toBe(LONGEST_ID)
    })

    it.each([
      { what: '129 characters', id: `${LONGEST_ID}x` },
      { what: 'a space', id: 'caller id' },
      { what: 'a Latin-1 character', id: 'caller-\u00e9' },
      { what: 'nothing at all', id: '' },
    ])('a caller id of $what is replaced by a fresh one', async ({ id }) => {
      const res = await send('/v1/pets', { headers: AUTH }, id)
      expect(res.status).toBe(200)
      const given = res.headers.get('x-request-id')
      expect(given).toMatch(VISIBLE_ASCII)
      expect(given).not.toBe(id)
    })

    it('a caller id with non-ASCII UTF-8 bytes is replaced by a fresh one', async () => {
      const request = Buffer.concat([
        Buffer.from('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: caller-'),
        Buffer.from('é🐕', 'utf8'),
        Buffer.from('\r\nConnection: close\r\n\r\n'),
      ])
      const res = await rawExchange(svc().url, request)
      expect(res.status).toBe(200)
      const given = res.headers.get('x-request-id')
      expect(given).toMatch(VISIBLE_ASCII)
      expect(given?.startsWith('caller-')).toBe(false)
    })

    it('responses without a caller id each get a distinct id', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => send('/v1/pets', { headers: AUTH })),
      )
      const ids = responses.map((res) => res.headers.get('x-request-id'))
      expect(ids.every((id) => id !== null && VISIBLE_ASCII.test(id))).toBe(true)
      expect(new Set(ids).size).toBe(10)
    })
  })
