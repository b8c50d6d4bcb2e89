import { storeUnavailable, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'

// The network could not reach the server, or the connection broke.
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
])

// SQLSTATEs: query_canceled (statement_timeout), admin_shutdown, crash_shutdown, cannot_connect_now,
// too_many_connections. Class 08 (connection exceptions) is matched by its prefix.
const SQLSTATES = new Set(['57014', '57P01', '57P02', '57P03', '53300'])

// pg reports its own timeouts and broken clients with plain Errors that carry no code.
const PG_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
]

/**
 * Tells whether an error means the store cannot be reached or did not answer in time, as opposed
 * to a bug (bad SQL, a broken constraint), which must stay an error. Follows `cause` and the
 * `errors` of an AggregateError.
 */
export const isUnavailableError = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 8) return false
  const { code, message, cause, errors } = error as {
    code?: unknown
    message?: unknown
    cause?: unknown
    errors?: unknown
  }
  if (
    typeof code === 'string' &&
    (NODE_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true
  if (typeof message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(message))) return true
  return (
    isUnavailableError(cause, depth + 1) ||
    (Array.isArray(errors) && errors.some((e: unknown) => isUnavailableError(e, depth + 1)))
  )
}

/**
 * Runs a database call: errors that mean the store is unavailable become a left `StoreUnavailable`;
 * any other error is rethrown, because a bug must not look like a 503.
 */
export const tryStore =
  <A>(query: () => Promise<A>): TE.TaskEither<StoreUnavailable, A> =>
  async () => {
    try {
      return E.right(await query())
    } catch (error) {
      if (isUnavailableError(error)) return E.left(storeUnavailable(error))
      throw error
    }
  }
