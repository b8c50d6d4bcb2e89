import { describeErrors } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { ErrorBody, ERRORS, HEADERS } from '@pets/wire'
import {
  ERROR_TAGS,
  type PetsClientError,
  type ServiceError,
  type UndecodableResponse,
} from './client-errors.js'

/**
 * The most of a response body the client reads, in bytes: the largest page the service answers (100 pets,
 * each name 255 characters written as escapes) is about 310 KB. A longer body is cancelled, never held whole.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024

/** A response whose body has been read in full; `text` undefined when it was over MAX_RESPONSE_BYTES. */
export type ReadResponse = {
  readonly status: number
  readonly headers: Headers
  readonly text: string | undefined
}

const undecodable = (res: Pick<ReadResponse, 'status' | 'headers'>, reason: string): UndecodableResponse => ({
  _tag: 'UndecodableResponse',
  status: res.status,
  reason,
  requestId: res.headers.get(HEADERS.requestId) ?? undefined,
})

const parseJson = ({ text, ...res }: ReadResponse): E.Either<UndecodableResponse, unknown> =>
  text === undefined
    ? E.left(undecodable(res, `the body is over ${MAX_RESPONSE_BYTES} bytes`))
    : E.tryCatch(
        () => JSON.parse(text) as unknown,
        () =>
          undecodable(
            res,
            `the body is not JSON (Content-Type: ${res.headers.get('Content-Type') ?? 'none'})`,
          ),
      )

const decodeBody =
  <A>(res: ReadResponse, codec: t.Decoder<unknown, A>) =>
  (json: unknown): E.Either<UndecodableResponse, A> =>
    pipe(
      codec.decode(json),
      E.mapLeft((errors) =>
        undecodable(
          res,
          describeErrors(errors)
            .map(({ field, problem }) => `${field === '' ? 'the body' : field} ${problem}`)
            .join('; '),
        ),
      ),
    )

// The fetch standard: status 0 is an opaque response only, and to a request of the default mode sent with
// `redirect: 'manual'` that is an opaque redirect (a browser's answer to a 3xx): status and Location hidden.
const redirectReason = (res: ReadResponse): string => {
  if (res.status === 0)
    return 'a redirect, which the client does not follow (its status and Location hidden by this fetch: an opaque redirect)'
  const location = res.headers.get('Location')
  return `a ${res.status} redirect ${location === null ? 'without a Location' : `to ${location}`}, not followed`
}

/** Seconds from a Retry-After header in whole seconds (CONTRACT), or undefined. */
export const retryAfterSeconds = (headers: Headers): number | undefined => {
  const value = headers.get(HEADERS.retryAfter)?.trim()
  return value !== undefined && /^[0-9]{1,9}$/.test(value) ? Number(value) : undefined
}

const toServiceError = (res: ReadResponse, body: t.TypeOf<typeof ErrorBody>): ServiceError => {
  const common = {
    message: body.message,
    requestId: res.headers.get(HEADERS.requestId) ?? undefined,
  }
  // The union cannot be narrowed through a lookup table; each entry of ERROR_TAGS matches its code.
  const error = { _tag: ERROR_TAGS[body.code], code: body.code, status: ERRORS[body.code].status, ...common }
  switch (body.code) {
    case 'method_not_allowed': {
      const allow = (res.headers.get(HEADERS.allow) ?? '').split(',').map((m) => m.trim())
      return { ...error, allow: allow.filter((m) => m !== '') } as ServiceError
    }
    case 'rate_limited':
    case 'unavailable':
      return { ...error, retryAfterSeconds: retryAfterSeconds(res.headers) } as ServiceError
    default:
      return error as ServiceError
  }
}

/**
 * Decodes a response with the operation's codec on its success status, else as an Error body whose
 * status and code agree with the HTTP status; anything else is an UndecodableResponse.
 */
export const decodeResponse = <A>(
  res: ReadResponse,
  success: number,
  codec: t.Decoder<unknown, A>,
): E.Either<PetsClientError, A> => {
  if (res.status === success) return pipe(parseJson(res), E.flatMap(decodeBody(res, codec)))
  if (res.status === 0 || (res.status >= 300 && res.status < 400))
    return E.left(undecodable(res, redirectReason(res)))
  if (res.status < 400) return E.left(undecodable(res, `the status is ${res.status}, not ${success}`))
  return pipe(
    parseJson(res),
    E.flatMap(decodeBody(res, ErrorBody)),
    E.flatMap((body) =>
      body.status === res.status && ERRORS[body.code].status === res.status
        ? E.right(toServiceError(res, body))
        : E.left(undecodable(res, `an Error body with code ${body.code} and status ${body.status}`)),
    ),
    E.flatMap((error): E.Either<PetsClientError, A> => E.left(error)),
  )
}
