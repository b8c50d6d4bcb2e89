import type { ApiKeyOwner, Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Problem } from './problems.js'

// CONTRACT (RFC 7235, RFC 6750): the scheme, case-insensitive, one or more spaces, the key.
const BEARER = /^bearer +(.*)$/is

/** The API key of an Authorization header, or undefined when none was sent with the Bearer scheme. */
export const bearerKey = (header: string | undefined): string | undefined => {
  const key = header === undefined ? undefined : BEARER.exec(header)?.[1]
  return key === undefined || key === '' ? undefined : key
}

const NO_KEY: Problem = { _tag: 'Unauthorized', keySent: false }
const UNKNOWN_KEY: Problem = { _tag: 'Unauthorized', keySent: true }

/**
 * Finds who holds the key of a request (bearerKey), or the problem to answer with: 401, or 503
 * when the store is down.
 */
export const authenticateKey = async (
  authenticator: Authenticator,
  key: string | undefined,
): Promise<E.Either<Problem, ApiKeyOwner>> => {
  if (key === undefined) return E.left(NO_KEY)
  const found = await authenticator.authenticate(key)()
  if (E.isLeft(found)) return found
  return O.isSome(found.right) ? E.right(found.right.value) : E.left(UNKNOWN_KEY)
}
