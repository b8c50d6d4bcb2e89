import type { ErrorCode, StatusOf } from '@pets/wire'

export type { ErrorCode } from '@pets/wire'

/** What every error the service answered with carries: its Error body and its request id. */
export type ServiceErrorOf<Tag extends string, Code extends ErrorCode> = {
  readonly _tag: Tag
  readonly code: Code
  readonly status: StatusOf<Code>
  /** For people: what was wrong (for 400, every offending field or parameter). */
  readonly message: string
  /** The response's X-Request-Id: quote it when asking the service's operators. */
  readonly requestId: string | undefined
}

/** How long the service asked the client to wait, from `Retry-After`. */
type RetryAfter = { readonly retryAfterSeconds: number | undefined }

/** 400: a field, parameter or body the service refused; `message` names each one. */
export type ValidationFailed = ServiceErrorOf<'ValidationFailed', 'validation_failed'>
/** 401: the API key is missing, unknown or revoked. */
export type Unauthorized = ServiceErrorOf<'Unauthorized', 'unauthorized'>
/** 404: no pet has this id, or no resource is at this path. */
export type NotFound = ServiceErrorOf<'NotFound', 'not_found'>
/** 405: the path exists, the method does not; `allow` lists the methods it has. */
export type MethodNotAllowed = ServiceErrorOf<'MethodNotAllowed', 'method_not_allowed'> & {
  readonly allow: ReadonlyArray<string>
}
/** 409: a request with the same Idempotency-Key is still running. */
export type IdempotencyKeyInUse = ServiceErrorOf<'IdempotencyKeyInUse', 'idempotency_key_in_use'>
/** 410: the operation has passed its sunset (getPet, from 5 December 2030). */
export type Gone = ServiceErrorOf<'Gone', 'gone'>
/** 413: the request body is over 64 KiB. */
export type PayloadTooLarge = ServiceErrorOf<'PayloadTooLarge', 'payload_too_large'>
/** 415: the request body was not sent as UTF-8 JSON. */
export type UnsupportedMediaType = ServiceErrorOf<'UnsupportedMediaType', 'unsupported_media_type'>
/** 422: this Idempotency-Key was used before with a different body. */
export type IdempotencyKeyReused = ServiceErrorOf<'IdempotencyKeyReused', 'idempotency_key_reused'>
/** 429: too many requests for this API key; retried by the client within its bounds. */
export type RateLimited = ServiceErrorOf<'RateLimited', 'rate_limited'> & RetryAfter
/** 500: a defect in the service; the request id finds it in the service's logs. */
export type InternalError = ServiceErrorOf<'InternalError', 'internal_error'>
/** 501: the operation exists in the interface but is not implemented (GET /store/orders). */
export type NotImplemented = ServiceErrorOf<'NotImplemented', 'not_implemented'>
/**
 * 503: the service cannot reach its store; retried by the client within its bounds for the GETs, and for
 * createPet only with an Idempotency-Key (the pet may have been added).
 */
export type Unavailable = ServiceErrorOf<'Unavailable', 'unavailable'> & RetryAfter

/** An Error body the service answered with, one type per code. */
export type ServiceError =
  | ValidationFailed
  | Unauthorized
  | NotFound
  | MethodNotAllowed
  | IdempotencyKeyInUse
  | Gone
  | PayloadTooLarge
  | UnsupportedMediaType
  | IdempotencyKeyReused
  | RateLimited
  | InternalError
  | NotImplemented
  | Unavailable

/**
 * A response the contract does not promise: a body that does not decode, an unknown code, a proxy's page, a 3xx, a
 * body over MAX_RESPONSE_BYTES (cancelled there, unread).
 */
export type UndecodableResponse = {
  readonly _tag: 'UndecodableResponse'
  readonly status: number
  readonly reason: string
  readonly requestId: string | undefined
}

/** No response came: the connection failed or the attempt timed out. */
export type NetworkFailure = {
  readonly _tag: 'NetworkFailure'
  /** The origin the attempt was sent to (`http://pets.internal:8080`): who did not answer. */
  readonly origin: string
  readonly reason: string
  readonly cause: unknown
}

/** The caller ended the call with its `signal` (or its fetch threw an AbortError): nothing more was sent. */
export type Aborted = {
  readonly _tag: 'Aborted'
  /** How far the call had gone: `aborted before anything was sent`, `… during attempt 2`, `… while waiting …`. */
  readonly reason: string
  /** The signal's `reason` (an AbortError unless `abort()` was given one), or what fetch threw. */
  readonly cause: unknown
}

/** Every failure of a client call: tagged data, to `switch` on `_tag`. */
export type PetsClientError = ServiceError | UndecodableResponse | NetworkFailure | Aborted

/** The `_tag` of each code's error. */
export const ERROR_TAGS: { readonly [C in ErrorCode]: Extract<ServiceError, { code: C }>['_tag'] } = {
  validation_failed: 'ValidationFailed',
  unauthorized: 'Unauthorized',
  not_found: 'NotFound',
  method_not_allowed: 'MethodNotAllowed',
  idempotency_key_in_use: 'IdempotencyKeyInUse',
  gone: 'Gone',
  payload_too_large: 'PayloadTooLarge',
  unsupported_media_type: 'UnsupportedMediaType',
  idempotency_key_reused: 'IdempotencyKeyReused',
  rate_limited: 'RateLimited',
  internal_error: 'InternalError',
  not_implemented: 'NotImplemented',
  unavailable: 'Unavailable',
}

/**
 * What `allPets` throws, as an async iterator has no left side; `error` is the typed failure, and
 * `cause` the error underneath it when there is one (what fetch threw, an abort's reason), for loggers.
 */
export class PetsClientFailure extends Error {
  override readonly name = 'PetsClientFailure'
  constructor(readonly error: PetsClientError) {
    super(describeClientError(error), 'cause' in error ? { cause: error.cause } : undefined)
  }
}

// The id to quote to the service's operators, where the service answered with one.
const quoting = (requestId: string | undefined) =>
  requestId === undefined ? '' : ` (request id ${requestId})`

/** A one-line description of a failure, for logs and exceptions, with the request id the service gave. */
export const describeClientError = (error: PetsClientError): string => {
  switch (error._tag) {
    case 'NetworkFailure':
      return `no response from the animal store at ${error.origin}: ${error.reason}`
    case 'Aborted':
      return `the call to the animal store was ${error.reason}`
    case 'UndecodableResponse':
      return `the animal store answered ${error.status} with a response that does not decode: ${error.reason}${quoting(error.requestId)}`
    default:
      return `the animal store answered ${error.status} ${error.code}: ${error.message}${quoting(error.requestId)}`
  }
}
