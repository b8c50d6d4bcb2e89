import type { DomainError, Issue } from '@pets/domain'
import { ERRORS, HEADERS, type ErrorBody, type ErrorCode } from '@pets/wire'

/**
 * No valid API key came with a request under /v1; `keySent` when one came but is not valid; `malformed` when the
 * request is (RFC 6750 3.1: invalid_request): Authorization came on several lines (`twice`: node would have kept
 * the first), or a tab separates the key from the scheme (`tab`: RFC 9110 11.4 allows spaces alone).
 */
export type Unauthorized = {
  readonly _tag: 'Unauthorized'
  readonly keySent: boolean
  readonly malformed?: 'twice' | 'tab'
}
export type RouteNotFound = { readonly _tag: 'RouteNotFound' }
export type MethodNotAllowed = { readonly _tag: 'MethodNotAllowed'; readonly allow: ReadonlyArray<string> }
export type NotImplemented = { readonly _tag: 'NotImplemented'; readonly reason?: string }
export type UnsupportedMediaType = {
  readonly _tag: 'UnsupportedMediaType'
  readonly reason: string
  /** A content coding was refused: the answer says which it accepts (RFC 9110, 15.5.16). */
  readonly coding?: true
}
export type PayloadTooLarge = { readonly _tag: 'PayloadTooLarge'; readonly limit: number }
/** Something in the request other than a field of the domain is malformed, such as its JSON. */
export type MalformedRequest = { readonly _tag: 'MalformedRequest'; readonly reason: string }
/** A defect: logged, and answered without details. */
export type InternalError = { readonly _tag: 'InternalError' }
/** The service has begun to shut down: it still answers, but wants no new traffic. */
export type ShuttingDown = { readonly _tag: 'ShuttingDown' }
/** The key's rate limit is spent, or (`by: 'address'`) the address's lookups of invalid keys are. */
export type RateLimited = {
  readonly _tag: 'RateLimited'
  readonly retryAfterSeconds: number
  readonly by?: 'key' | 'address'
}

/** Everything the HTTP adapter can answer with an Error body. */
export type Problem =
  | DomainError
  | Unauthorized
  | RouteNotFound
  | MethodNotAllowed
  | NotImplemented
  | UnsupportedMediaType
  | PayloadTooLarge
  | MalformedRequest
  | InternalError
  | ShuttingDown
  | RateLimited

/** An answer of toErrorResponse: the contract's Error body and the headers that go with it. */
export type ErrorResponse = { readonly body: ErrorBody; readonly headers: Readonly<Record<string, string>> }

/** Seconds a client should wait before retrying when the store is unavailable. */
export const RETRY_AFTER_SECONDS = 5
export const REALM = 'animal-store'

// The status comes from the code, by the wire's table: the two cannot disagree.
const respond = (
  code: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): ErrorResponse => ({ body: { code, message, status: ERRORS[code].status }, headers })

const MALFORMED_AUTHORIZATION = {
  twice: 'Send one Authorization header: a request with several is refused.',
  tab: 'Separate "Bearer" from the API key with spaces, not tabs: send "Authorization: Bearer <API key>".',
} as const

const describeIssue = ({ field, problem }: Issue) =>
  field === '' ? `the body ${problem}` : `${field} ${problem}`

/** The one place that maps a problem to its status, code, message and headers. */
export const toErrorResponse = (p: Problem): ErrorResponse => {
  switch (p._tag) {
    case 'InvalidInput':
      return respond('validation_failed', `Invalid request: ${p.issues.map(describeIssue).join('; ')}.`)
    case 'MalformedRequest':
      return respond('validation_failed', p.reason)
    case 'Unauthorized':
      return p.malformed !== undefined
        ? respond('unauthorized', MALFORMED_AUTHORIZATION[p.malformed], {
            [HEADERS.wwwAuthenticate]: `Bearer realm="${REALM}", error="invalid_request"`,
          })
        : respond('unauthorized', 'A valid API key is required: send "Authorization: Bearer <API key>".', {
            [HEADERS.wwwAuthenticate]: p.keySent
              ? `Bearer realm="${REALM}", error="invalid_token"`
              : `Bearer realm="${REALM}"`,
          })
    case 'PetNotFound':
      return respond('not_found', `No pet has id ${p.id}.`)
    case 'RouteNotFound':
      return respond('not_found', 'No resource is at this path.')
    case 'MethodNotAllowed':
      return respond('method_not_allowed', `This path allows only ${p.allow.join(', ')}.`, {
        [HEADERS.allow]: p.allow.join(', '),
      })
    case 'Gone':
      return respond('gone', `The ${p.operation} operation was removed on ${p.sunset.toISOString()}.`)
    case 'PayloadTooLarge':
      return respond('payload_too_large', `The request body must not exceed ${p.limit} bytes.`)
    case 'UnsupportedMediaType':
      return respond(
        'unsupported_media_type',
        p.reason,
        p.coding === true ? { [HEADERS.acceptEncoding]: 'identity' } : {},
      )
    case 'IdempotencyKeyInUse':
      return respond(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being performed; retry once it has finished.',
      )
    case 'IdempotencyKeyReused':
      return respond(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
      )
    case 'RateLimited':
      return respond(
        'rate_limited',
        p.by === 'address'
          ? `Too many requests with an API key that is not valid came from this address; retry in ${p.retryAfterSeconds} s.`
          : `Too many requests with this API key; retry in ${p.retryAfterSeconds} s.`,
        { [HEADERS.retryAfter]: String(p.retryAfterSeconds) },
      )
    case 'InternalError':
      return respond('internal_error', 'Something went wrong on our side; the request id helps us find it.')
    case 'NotImplemented':
      return respond('not_implemented', p.reason ?? 'This operation is not implemented.')
    case 'StoreUnavailable':
      return respond(
        'unavailable',
        p.refusesWrites === true
          ? 'The pet store accepts no changes right now: its database refuses writes, as during a failover. Reads work; try again shortly.'
          : 'The pet store cannot be reached right now; try again shortly.',
        { [HEADERS.retryAfter]: String(RETRY_AFTER_SECONDS) },
      )
    case 'ShuttingDown':
      return respond('unavailable', 'This instance is shutting down; send new requests elsewhere.', {
        [HEADERS.retryAfter]: String(RETRY_AFTER_SECONDS),
      })
  }
}
