import { invalidInput, type PetId } from '@pets/domain'
import { describe, expect, it } from 'vitest'
import { toErrorResponse, type Problem } from '../src/problems.js'

// One example of every tag: a new tag that is missing here is a type error.
const examples: { readonly [T in Problem['_tag']]: Extract<Problem, { _tag: T }> } = {
  InvalidInput: invalidInput([{ field: 'name', problem: 'is required' }]),
  MalformedRequest: { _tag: 'MalformedRequest', reason: 'The body is not valid JSON.' },
  Unauthorized: { _tag: 'Unauthorized', keySent: false },
  PetNotFound: { _tag: 'PetNotFound', id: 42 as PetId },
  RouteNotFound: { _tag: 'RouteNotFound' },
  MethodNotAllowed: { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] },
  Gone: { _tag: 'Gone', operation: 'getPet', sunset: new Date('2030-12-05T00:00:00Z') },
  PayloadTooLarge: { _tag: 'PayloadTooLarge', limit: 65536 },
  UnsupportedMediaType: { _tag: 'UnsupportedMediaType', reason: 'Send application/json.' },
  InternalError: { _tag: 'InternalError' },
  NotImplemented: { _tag: 'NotImplemented' },
  StoreUnavailable: { _tag: 'StoreUnavailable', cause: new Error('connect ECONNREFUSED secret-host:5432') },
  ShuttingDown: { _tag: 'ShuttingDown' },
  IdempotencyKeyInUse: { _tag: 'IdempotencyKeyInUse' },
  IdempotencyKeyReused: { _tag: 'IdempotencyKeyReused' },
  RateLimited: { _tag: 'RateLimited', retryAfterSeconds: 7 },
}

// CONTRACT: the code table of the Errors section.
const expected: { readonly [T in Problem['_tag']]: readonly [number, string] } = {
  InvalidInput: [400, 'validation_failed'],
  MalformedRequest: [400, 'validation_failed'],
  Unauthorized: [401, 'unauthorized'],
  PetNotFound: [404, 'not_found'],
  RouteNotFound: [404, 'not_found'],
  MethodNotAllowed: [405, 'method_not_allowed'],
  Gone: [410, 'gone'],
  PayloadTooLarge: [413, 'payload_too_large'],
  UnsupportedMediaType: [415, 'unsupported_media_type'],
  InternalError: [500, 'internal_error'],
  NotImplemented: [501, 'not_implemented'],
  StoreUnavailable: [503, 'unavailable'],
  ShuttingDown: [503, 'unavailable'],
  IdempotencyKeyInUse: [409, 'idempotency_key_in_use'],
  IdempotencyKeyReused: [422, 'idempotency_key_reused'],
  RateLimited: [429, 'rate_limited'],
}

const tags = Object.keys(examples) as ReadonlyArray<Problem['_tag']>

describe('toErrorResponse', () => {
  it.each(tags)('answers %s with the status and code of the contract', (tag) => {
    const { body } = toErrorResponse(examples[tag])
    const [status, code] = expected[tag]
    expect({ status: body.status, code: body.code }).toEqual({ status, code })
  })

  it.each(tags)('answers %s with exactly code, message and status, and a message for people', (tag) => {
    const { body } = toErrorResponse(examples[tag])
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status'])
    expect(body.message.trim().length).toBeGreaterThan(0)
  })

  it.each(tags)('never puts a cause or a stack of %s in the message', (tag) => {
    const { message } = toErrorResponse(examples[tag]).body
    expect(message).not.toContain('secret-host')
    expect(message).not.toMatch(/\bat .*:\d+:\d+/)
  })

  it.each(
    tags.filter(
      (t) =>
        !['Unauthorized', 'MethodNotAllowed', 'StoreUnavailable', 'ShuttingDown', 'RateLimited'].includes(t),
    ),
  )('adds no header to %s', (tag) => {
    expect(toErrorResponse(examples[tag]).headers).toEqual({})
  })

  it('challenges for a bearer key on 401, with error="invalid_token" only when a key was sent', () => {
    expect(toErrorResponse({ _tag: 'Unauthorized', keySent: false }).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="animal-store"',
    })
    expect(toErrorResponse({ _tag: 'Unauthorized', keySent: true }).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="animal-store", error="invalid_token"',
    })
  })

  it('lists the allowed methods in Allow on 405, and in the message', () => {
    const { body, headers } = toErrorResponse({ _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] })
    expect(headers).toEqual({ Allow: 'GET, HEAD' })
    expect(body.message).toContain('GET, HEAD')
  })

  it('tells the client when to retry on 503, in whole seconds', () => {
    expect(toErrorResponse({ _tag: 'StoreUnavailable' }).headers).toEqual({ 'Retry-After': '5' })
    expect(toErrorResponse({ _tag: 'ShuttingDown' }).headers).toEqual({ 'Retry-After': '5' })
  })

  it('tells the client on 429 how many whole seconds to wait, in Retry-After and in the message', () => {
    const { body, headers } = toErrorResponse({ _tag: 'RateLimited', retryAfterSeconds: 7 })
    expect(headers).toEqual({ 'Retry-After': '7' })
    expect(body.message).toContain('7 s')
  })

  it('names every offending field of InvalidInput, and the body itself for the field ""', () => {
    const { message } = toErrorResponse(
      invalidInput([
        { field: 'name', problem: 'is required' },
        { field: 'categoryId', problem: 'must be an integer from 1 to 9007199254740991' },
        { field: 'tags', problem: 'is not a field of a new pet' },
      ]),
    ).body
    expect(message).toContain('name is required')
    expect(message).toContain('categoryId must be an integer from 1 to 9007199254740991')
    expect(message).toContain('tags is not a field of a new pet')
    expect(
      toErrorResponse(invalidInput([{ field: '', problem: 'must be a JSON object' }])).body.message,
    ).toContain('the body must be a JSON object')
  })

  it('names the missing pet on 404, the limit on 413 and the sunset on 410', () => {
    expect(toErrorResponse(examples.PetNotFound).body.message).toContain('42')
    expect(toErrorResponse(examples.PayloadTooLarge).body.message).toContain('65536')
    expect(toErrorResponse(examples.Gone).body.message).toContain('2030-12-05T00:00:00.000Z')
  })

  it('passes the reason of a malformed request or an unsupported media type on', () => {
    expect(toErrorResponse(examples.MalformedRequest).body.message).toBe('The body is not valid JSON.')
    expect(toErrorResponse(examples.UnsupportedMediaType).body.message).toBe('Send application/json.')
  })
})
