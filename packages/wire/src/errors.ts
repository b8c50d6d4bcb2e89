import { checked } from '@pets/domain'
import * as t from 'io-ts'
import { described } from './json-schema.js'

/** CONTRACT: every `code` of an Error body, with the HTTP status it always comes with and its title. */
export const ERRORS = {
  validation_failed: { status: 400, title: 'Validation failed' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  gone: { status: 410, title: 'Gone' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  not_implemented: { status: 501, title: 'Not implemented' },
  unavailable: { status: 503, title: 'Unavailable' },
} as const

/** A value of the `code` field of an Error body. */
export type ErrorCode = keyof typeof ERRORS
/** The HTTP status that comes with a code. */
export type StatusOf<C extends ErrorCode> = (typeof ERRORS)[C]['status']

/** The codes of ERRORS, as a codec. */
export const ErrorCode = t.keyof(
  Object.fromEntries(Object.keys(ERRORS).map((code) => [code, null])) as Record<ErrorCode, null>,
  'ErrorCode',
)

const HttpStatus = described(
  checked<number, number>('HttpStatus', t.number, 'must be a number', (n) =>
    Number.isInteger(n) && n >= 100 && n <= 599 ? undefined : 'must be an HTTP status code',
  ),
  { type: 'integer', minimum: 100, maximum: 599 },
)

/** The Error body of the interface: exactly `code`, `message` and `status`, which equals the HTTP status. */
export const ErrorBody = t.type({ code: ErrorCode, message: t.string, status: HttpStatus }, 'Error')
export type ErrorBody = Readonly<t.TypeOf<typeof ErrorBody>>
