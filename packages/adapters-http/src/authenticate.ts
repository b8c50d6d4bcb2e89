import type { ApiKeyOwner, Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Problem } from './problems.js'
import type { TokenBucketRateLimiter } from './rate-limiter.js'

// CONTRACT (RFC 7235, RFC 6750): the scheme, case-insensitive, one or more spaces, the key.
const BEARER = /^bearer +(.*)$/is

/** The API key of an Authorization header, or undefined when none was sent with the Bearer scheme. */
export const bearerKey = (header: string | undefined): string | undefined => {
  const key = header === undefined ? undefined : BEARER.exec(header)?.[1]
  return key === undefined || key === '' ? undefined : key
}

/**
 * Whether an Authorization header is the Bearer scheme and a key with a tab among the white space between them
 * (RFC 9110 section 11.4 separates them by spaces alone): a key sent, malformed, not a missing one.
 */
export const tabAfterBearer = (header: string): boolean => {
  if (header.length < 8 || header.slice(0, 6).toLowerCase() !== 'bearer') return false
  let tab = false
  let i = 6
  for (; i < header.length && (header[i] === ' ' || header[i] === '\t'); i++) tab ||= header[i] === '\t'
  return tab && i < header.length
}

const NO_KEY: Problem = { _tag: 'Unauthorized', keySent: false }
const UNKNOWN_KEY: Problem = { _tag: 'Unauthorized', keySent: true }

/** Who may look a key up in the store: a limit on the failed lookups of each client address. */
export type LookupLimit<Request> = {
  readonly failures: TokenBucketRateLimiter
  /** The bucket of the request's client (addressBucketOf), asked only when a lookup is due. */
  readonly addressOf: (request: Request) => string
}

const answer = (found: O.Option<ApiKeyOwner>): E.Either<Problem, ApiKeyOwner> =>
  O.isSome(found) ? E.right(found.value) : E.left(UNKNOWN_KEY)

/**
 * Who holds a request's key, or the problem: 401, 503, or 429 when the address has spent its failed
 * lookups. A token is spent before each lookup, so concurrent ones cannot all pass on the last, and
 * given back unless the key was invalid; a key answered from memory is never limited. `asked`: the memory's
 * answer for this key when the caller has it already (pets-api.ts asks it of a request sending a traceparent),
 * so that the key is not digested twice.
 */
export const authenticateKey = async <Request>(
  authenticator: Authenticator,
  key: string | undefined,
  limit?: LookupLimit<Request>,
  request?: Request,
  asked?: O.Option<ApiKeyOwner>,
): Promise<E.Either<Problem, ApiKeyOwner>> => {
  if (key === undefined) return E.left(NO_KEY)
  const known = asked ?? authenticator.fromMemory?.(key)
  if (known !== undefined) return answer(known)
  const address = limit?.addressOf(request as Request)
  if (limit !== undefined && address !== undefined) {
    const { allowed, resetSeconds } = limit.failures.take(address)
    if (!allowed) return E.left({ _tag: 'RateLimited', retryAfterSeconds: resetSeconds, by: 'address' })
  }
  const found = await authenticator.authenticate(key)()
  // Given back for a valid key and for an answer the store could not give.
  if (limit !== undefined && address !== undefined && (E.isLeft(found) || O.isSome(found.right)))
    limit.failures.refund(address)
  return E.isLeft(found) ? found : answer(found.right)
}
