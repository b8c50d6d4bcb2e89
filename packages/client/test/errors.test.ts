import { toErrorResponse, type Problem } from '@pets/adapters-http'
import { invalidInput, type PetId } from '@pets/domain'
import { runLeft } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { ERROR_TAGS, ERRORS, type ErrorCode } from '../src/index.js'
import { answering } from './support/answering.js'

const codes = Object.keys(ERRORS) as ReadonlyArray<ErrorCode>

describe('the typed errors of the client', () => {
  it.each(codes)('turns an Error body with code %s into its own typed error', async (code) => {
    const status = ERRORS[code].status
    const client = answering(status, JSON.stringify({ code, message: 'what went wrong', status }), {
      'X-Request-Id': 'req-1',
    })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: ERROR_TAGS[code],
      code,
      status,
      message: 'what went wrong',
      requestId: 'req-1',
    })
  })

  it('gives RateLimited and Unavailable the seconds of Retry-After', async () => {
    const limited = answering(
      429,
      JSON.stringify({ code: 'rate_limited', message: 'slow down', status: 429 }),
      {
        'Retry-After': '7',
      },
    )
    expect(await runLeft(limited.listPets())).toMatchObject({ _tag: 'RateLimited', retryAfterSeconds: 7 })
    const down = answering(503, JSON.stringify({ code: 'unavailable', message: 'down', status: 503 }))
    expect(await runLeft(down.listPets())).toMatchObject({
      _tag: 'Unavailable',
      retryAfterSeconds: undefined,
    })
  })

  it('gives MethodNotAllowed the methods of the Allow header', async () => {
    const client = answering(
      405,
      JSON.stringify({ code: 'method_not_allowed', message: 'no', status: 405 }),
      {
        Allow: 'GET, HEAD',
      },
    )
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'MethodNotAllowed',
      allow: ['GET', 'HEAD'],
    })
  })

  it('reads a Retry-After of several digits as seconds, and an HTTP date as none', async () => {
    const limitedFor = (retryAfter: string) =>
      answering(429, JSON.stringify({ code: 'rate_limited', message: 'slow down', status: 429 }), {
        'Retry-After': retryAfter,
      })
    expect(await runLeft(limitedFor('86400').listPets())).toMatchObject({ retryAfterSeconds: 86400 })
    expect(await runLeft(limitedFor('Wed, 21 Oct 2026 07:28:00 GMT').listPets())).toMatchObject({
      retryAfterSeconds: undefined,
    })
  })

  it('gives MethodNotAllowed no empty method, for an Allow header missing or with empty elements', async () => {
    const body = JSON.stringify({ code: 'method_not_allowed', message: 'no', status: 405 })
    expect(await runLeft(answering(405, body).listPets())).toMatchObject({ allow: [] })
    expect(await runLeft(answering(405, body, { Allow: 'GET,, HEAD,' }).listPets())).toMatchObject({
      allow: ['GET', 'HEAD'],
    })
  })

  it('answers UndecodableResponse for an Error body whose status is not the HTTP status', async () => {
    const client = answering(400, JSON.stringify({ code: 'validation_failed', message: 'x', status: 404 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 400 })
  })

  it('answers UndecodableResponse for a code the contract pairs with another status', async () => {
    const client = answering(404, JSON.stringify({ code: 'gone', message: 'x', status: 404 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 404 })
  })

  it('answers UndecodableResponse for a code the contract does not have', async () => {
    const client = answering(418, JSON.stringify({ code: 'teapot', message: 'x', status: 418 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 418 })
  })

  it("answers UndecodableResponse for a proxy's HTML error page", async () => {
    const client = answering(502, '<html>Bad Gateway</html>', { 'Content-Type': 'text/html' })
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({ _tag: 'UndecodableResponse', status: 502 })
    expect(error._tag === 'UndecodableResponse' && error.reason).toContain('text/html')
  })
})

// One example of every problem of the HTTP adapter: a new tag missing here is a type error.
const problems: { readonly [T in Problem['_tag']]: Extract<Problem, { _tag: T }> } = {
  InvalidInput: invalidInput([{ field: 'name', problem: 'is required' }]),
  MalformedRequest: { _tag: 'MalformedRequest', reason: 'The body is not valid JSON.' },
  Unauthorized: { _tag: 'Unauthorized', keySent: true },
  PetNotFound: { _tag: 'PetNotFound', id: 42 as PetId },
  RouteNotFound: { _tag: 'RouteNotFound' },
  MethodNotAllowed: { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] },
  Gone: { _tag: 'Gone', operation: 'getPet', sunset: new Date('2030-12-05T00:00:00Z') },
  PayloadTooLarge: { _tag: 'PayloadTooLarge', limit: 65536 },
  UnsupportedMediaType: { _tag: 'UnsupportedMediaType', reason: 'Send application/json.' },
  InternalError: { _tag: 'InternalError' },
  NotImplemented: { _tag: 'NotImplemented' },
  StoreUnavailable: { _tag: 'StoreUnavailable' },
  IdempotencyKeyInUse: { _tag: 'IdempotencyKeyInUse' },
  IdempotencyKeyReused: { _tag: 'IdempotencyKeyReused' },
  ShuttingDown: { _tag: 'ShuttingDown' },
  RateLimited: { _tag: 'RateLimited', retryAfterSeconds: 7 },
}

describe('the client and the error responses of the HTTP adapter', () => {
  it.each(Object.values(problems))(
    'decodes the answer to $_tag into the typed error of its code',
    async (problem) => {
      const { body, headers } = toErrorResponse(problem)
      const client = answering(body.status, JSON.stringify(body), headers)
      expect(await runLeft(client.listPets())).toMatchObject({
        _tag: ERROR_TAGS[body.code as ErrorCode],
        code: body.code,
        status: body.status,
        message: body.message,
      })
    },
  )
})
