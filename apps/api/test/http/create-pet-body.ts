import { describe, expect, it } from 'vitest'
import { TEST_KEYS } from '../support/test-service.js'
import { expectError } from './expect-error.js'
import { useService, type StartService } from './harness.js'
import { listPage, postJson } from './pets-client.js'
import { rawExchange, rawRequest } from './raw-http.js'

const MAX_BODY = 64 * 1024
const VALID = '{"name":"Rex","categoryId":1}'
/** A JSON text of exactly `bytes` bytes: `json` followed by white space. */
const padded = (json: string, bytes: number) => json + ' '.repeat(bytes - Buffer.byteLength(json))
const AUTH = { Authorization: `Bearer ${TEST_KEYS[0]}` }

/** CONTRACT: POST /v1/pets takes a JSON object of at most 64 KiB, checked in the order 415, 413, 400. */
export const describeCreatePetBody = (start: StartService) =>
  describe('POST /v1/pets request bodies', () => {
    const svc = useService(start)
    const raw = (headers: Record<string, string | number>, chunks: ReadonlyArray<string>) =>
      rawRequest(svc().url, { method: 'POST', path: '/v1/pets', headers: { ...AUTH, ...headers }, chunks })

    it('a body without Content-Type gets 415 unsupported_media_type', async () => {
      const res = await raw({ 'Content-Length': Buffer.byteLength(VALID) }, [VALID])
      await expectError(res, 415, 'unsupported_media_type')
    })

    it.each([
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/json-patch+json',
    ])('a body sent as %s gets 415 unsupported_media_type', async (contentType) => {
      await expectError(
        await postJson(svc(), VALID, { 'Content-Type': contentType }),
        415,
        'unsupported_media_type',
      )
    })

    it('a body sent as application/json; charset=latin1 gets 415 unsupported_media_type', async () => {
      const res = await postJson(svc(), VALID, { 'Content-Type': 'application/json; charset=latin1' })
      await expectError(res, 415, 'unsupported_media_type')
    })

    it.each([
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      // Another name of UTF-8 (WHATWG's labels), as many clients write it.
      'application/json; charset=utf8',
      'application/json; charset="Unicode-1-1-UTF-8"',
    ])('a body sent as %s is accepted', async (contentType) => {
      expect((await postJson(svc(), VALID, { 'Content-Type': contentType })).status).toBe(201)
    })

    it('a body of exactly 64 KiB is accepted', async () => {
      expect((await postJson(svc(), padded(VALID, MAX_BODY))).status).toBe(201)
    })

    it('a body of 64 KiB and one byte gets 413 payload_too_large', async () => {
      await expectError(await postJson(svc(), padded(VALID, MAX_BODY + 1)), 413, 'payload_too_large')
    })

    it('a chunked body without Content-Length over 64 KiB gets 413 payload_too_large', async () => {
      const body = padded(VALID, MAX_BODY + 1)
      const res = await raw({ 'Content-Type': 'application/json' }, [
        body.slice(0, 40_000),
        body.slice(40_000),
      ])
      await expectError(res, 413, 'payload_too_large')
    })

    it('a chunked body without Content-Length of exactly 64 KiB is accepted', async () => {
      const body = padded(VALID, MAX_BODY)
      const res = await raw({ 'Content-Type': 'application/json' }, [
        body.slice(0, 40_000),
        body.slice(40_000),
      ])
      expect(res.status, await res.text()).toBe(201)
    })

    it('a Content-Length over 64 KiB gets 413 payload_too_large before the body is sent', async () => {
      const head = `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${AUTH.Authorization}\r\n`
      const res = await rawExchange(
        svc().url,
        `${head}Content-Type: application/json\r\nContent-Length: ${MAX_BODY * 16}\r\n\r\n${VALID}`,
      )
      await expectError(res, 413, 'payload_too_large')
    })

    it.each([
      { what: 'an empty body', body: '' },
      { what: 'malformed JSON', body: '{"name":"Rex",' },
      { what: 'JSON with a trailing comma', body: '{"name":"Rex","categoryId":1,}' },
      { what: 'an array', body: `[${VALID}]` },
      { what: 'a string', body: '"Rex"' },
      { what: 'a number', body: '42' },
      { what: 'null', body: 'null' },
      { what: 'true', body: 'true' },
    ])('$what gets 400 validation_failed', async ({ body }) => {
      await expectError(await postJson(svc(), body), 400, 'validation_failed')
    })

    it('a body that is not UTF-8 gets 400 validation_failed', async () => {
      const latin1 = Buffer.from('{"name":"Rex\xe9","categoryId":1}', 'latin1')
      await expectError(await postJson(svc(), latin1), 400, 'validation_failed')
    })

    it('a malformed JSON body is not echoed in the message', async () => {
      const { message } = await expectError(
        await postJson(svc(), '{"secret-ish": tru'),
        400,
        'validation_failed',
      )
      expect(message).not.toContain('secret-ish')
    })

    it.each([
      {
        what: 'a wrong Content-Type beats an oversize body',
        type: 'text/plain',
        json: VALID,
        bytes: MAX_BODY + 1,
        status: 415,
      },
      {
        what: 'a wrong Content-Type beats malformed JSON',
        type: 'text/plain',
        json: '{',
        bytes: 10,
        status: 415,
      },
      {
        what: 'an oversize body beats malformed JSON',
        type: 'application/json',
        json: '{"name":',
        bytes: MAX_BODY + 1,
        status: 413,
      },
      {
        what: 'an oversize body beats invalid fields',
        type: 'application/json',
        json: '{"name":"","categoryId":0,"id":1}',
        bytes: MAX_BODY + 1,
        status: 413,
      },
    ])('precedence: $what ($status)', async ({ type, json, bytes, status }) => {
      const res = await postJson(svc(), padded(json, bytes), { 'Content-Type': type })
      await expectError(res, status, status === 415 ? 'unsupported_media_type' : 'payload_too_large')
    })
  })

/** CONTRACT: a POST that is refused adds no pet. */
export const describeRefusedCreatePet = (start: StartService) =>
  describe('POST /v1/pets refused', () => {
    const svc = useService(start)

    it('adds no pet for a 400, 413 or 415', async () => {
      const refused = [
        await postJson(svc(), '{"name":"","categoryId":1}'),
        await postJson(svc(), '{"name":"Rex","categoryId":1,"id":1}'),
        await postJson(svc(), 'not json'),
        await postJson(svc(), padded(VALID, MAX_BODY + 1)),
        await postJson(svc(), VALID, { 'Content-Type': 'text/plain' }),
        await svc().request('/v1/pets', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: VALID,
        }),
      ]
      expect(refused.map((res) => res.status)).toEqual([400, 400, 400, 413, 415, 401])
      const { pets } = await listPage(svc(), '/v1/pets')
      expect(pets).toEqual([])
    })
  })
