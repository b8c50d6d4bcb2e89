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

const NO_KEY: Problem = { _tag: 'Unauthorized', keySent: false }
const UNKNOWN_KEY: Problem = { _tag: 'Unauthorized', keySent: true }

/** Who may look a key up in the store: a limit on the failed lookups of each client address. */
export type LookupLimit = {
  readonly failures: TokenBucketRateLimiter
  /** The bucket of the request's client (addressBucketOf), asked only when a lookup is due. */
  readonly addressOf: () => string
}

const answer = (found: O.Option<ApiKeyOwner>): E.Either<Problem, ApiKeyOwner> =>
  O.isSome(found) ? E.right(found.value) : E.left(UNKNOWN_KEY)

/**
 * Finds who holds the key of a request (bearerKey), or the problem to answer with: 401, 503 when
 * the store is down, 429 when the client's address has spent its failed lookups. A key answered
 * from memory (`fromMemory`) is never limited: it costs nothing, whatever other requests did.
 * Only a lookup is: a token is spent before it, so that lookups under way at once cannot all pass
 * on the last one, and given back unless the key turned out not to be valid.
 */
export const authenticateKey = async (
  authenticator: Authenticator,
  key: string | undefined,
  limit?: LookupLimit,
): Promise<E.Either<Problem, ApiKeyOwner>> => {
  if (key === undefined) return E.left(NO_KEY)
  const known = authenticator.fromMemory?.(key)
  if (known !== undefined) return answer(known)
  let refund: (() => void) | undefined
  if (limit !== undefined) {
    const address = limit.addressOf()
    const { allowed, resetSeconds } = limit.failures.take(address)
    if (!allowed) return E.left({ _tag: 'RateLimited', retryAfterSeconds: resetSeconds, by: 'address' })
    refund = () => limit.failures.refund(address)
  }
  const found = await authenticator.authenticate(key)()
  if (E.isLeft(found)) {
    refund?.()
    return found
  }
  if (O.isSome(found.right)) refund?.()
  return answer(found.right)
}
