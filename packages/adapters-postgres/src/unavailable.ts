import { storeRefusesWrites, storeUnavailable, type StoreUnavailable } from '@pets/domain'
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

// SQLSTATEs that mean "not now", never "wrong": each is answered 503 with Retry-After.
//   08xxx  connection exceptions (matched by class)
//   53xxx  insufficient resources: too many connections, out of memory, disk full (by class)
//   57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 57P04 database_dropped,
//   57P05 idle_session_timeout (by the prefix 57P)
//   57014  query_canceled: statement_timeout, or a cancel request
//   25006  read_only_sql_transaction: a standby, or default_transaction_read_only during a failover
//   25P03  idle_in_transaction_session_timeout
//   55P03  lock_not_available: lock_timeout, such as a write waiting on the id-ordering lock
const UNAVAILABLE_SQLSTATES = new Set(['57014', '25006', '25P03', '55P03'])
const UNAVAILABLE_CLASSES = /^(08|53)[0-9A-Z]{3}$|^57P[0-9A-Z]{2}$/
// 40001 serialization_failure, 40P01 deadlock_detected: the transaction was rolled back whole, so
// running the same statement again is safe. Retried once; if it fails again, 503.
const RETRY_SQLSTATES = new Set(['40001', '40P01'])
// 55000 object_not_in_prerequisite_state is also what a hot standby answers to an advisory lock:
// "cannot acquire lock mode ExclusiveLock on database objects while recovery is in progress".
const RECOVERY_MESSAGE = /recovery is in progress/

// A hot standby's refusal of a lock (55000 is also used for other states of objects).
const inRecovery = ({ code, message }: { code?: unknown; message?: unknown }): boolean =>
  code === '55000' && typeof message === 'string' && RECOVERY_MESSAGE.test(message)

// pg reports its own timeouts and broken clients with plain Errors that carry no code.
const PG_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
]

/** What an error means for the caller: try again later (503), try once more at once, or a bug. */
export type StoreErrorKind = 'unavailable' | 'retry' | 'defect'

type ErrorFields = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }

const ownKind = (error: ErrorFields): StoreErrorKind | undefined => {
  const { code, message } = error
  if (typeof code === 'string') {
    if (RETRY_SQLSTATES.has(code)) return 'retry'
    if (NODE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_CLASSES.test(code))
      return 'unavailable'
    if (inRecovery(error)) return 'unavailable'
  }
  if (typeof message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(message)))
    return 'unavailable'
  return undefined
}

/**
 * Tells what a database error means: `retry` for a deadlock or a serialization failure (the
 * statement may run once more), `unavailable` when the store cannot serve now (unreachable, too
 * slow, shutting down, out of connections, read-only), `defect` for anything else: a bug (bad SQL,
 * a broken constraint) must stay an error. Follows `cause` and the `errors` of an AggregateError.
 */
export const classifyStoreError = (error: unknown, depth = 0): StoreErrorKind => {
  if (typeof error !== 'object' || error === null || depth > 8) return 'defect'
  const fields = error as ErrorFields
  const own = ownKind(fields)
  if (own !== undefined) return own
  const inner = [fields.cause, ...(Array.isArray(fields.errors) ? (fields.errors as Array<unknown>) : [])]
  const kinds = inner.map((e) => classifyStoreError(e, depth + 1))
  if (kinds.includes('retry')) return 'retry'
  if (kinds.includes('unavailable')) return 'unavailable'
  return 'defect'
}

/**
 * Tells whether an error means the store cannot serve right now (including a deadlock or a
 * serialization failure), as opposed to a bug, which must stay an error.
 */
export const isUnavailableError = (error: unknown): boolean => classifyStoreError(error) !== 'defect'

/**
 * Whether the database answered but refuses writes: `25006` (a read-only transaction: a standby,
 * or `default_transaction_read_only` during a failover), or a hot standby's `55000` "recovery is
 * in progress" (where a write first asks for the id-ordering lock).
 */
const refusesWrites = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 8) return false
  const fields = error as ErrorFields
  return fields.code === '25006' || inRecovery(fields) || refusesWrites(fields.cause, depth + 1)
}

/** The SQLSTATE of an error from PostgreSQL (or of its cause), if it has one. */
export const sqlstateOf = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== 'object' || error === null || depth > 8) return undefined
  const { code, cause } = error as ErrorFields
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
  return sqlstateOf(cause, depth + 1)
}

/** One call that the adapter answered `StoreUnavailable` (a 503): what it was, and why. */
export type UnavailableEvent = {
  /** The port method, such as `pets.add` or `creations.addOnce`. */
  readonly operation: string
  /** PostgreSQL's SQLSTATE, such as `57014`; absent when the server never answered (a network error, a timeout of pg's). */
  readonly sqlstate?: string
  /** Whether the call had been run once more after a deadlock or serialization failure. */
  readonly retried: boolean
  readonly error: unknown
}

/** Told once of every call that answered StoreUnavailable. Must not throw (what it throws is dropped). */
export type OnUnavailable = (event: UnavailableEvent) => void

/** Where a call is reported: its operation's name, and whom to tell. */
export type TryStoreOptions = {
  readonly operation?: string
  readonly onUnavailable?: OnUnavailable
}

const report = (options: TryStoreOptions, error: unknown, retried: boolean) => {
  if (options.onUnavailable === undefined) return
  const sqlstate = sqlstateOf(error)
  try {
    options.onUnavailable({
      operation: options.operation ?? 'unknown',
      ...(sqlstate === undefined ? {} : { sqlstate }),
      retried,
      error,
    })
  } catch {
    // a reporter that fails must not turn a 503 into a 500
  }
}

/**
 * Runs a database call: errors that mean the store is unavailable become a left `StoreUnavailable`,
 * reported once to `onUnavailable`; a deadlock or serialization failure is run once more first
 * (every call of these adapters is one statement, so the failed attempt left nothing behind); any
 * other error is rethrown, because a bug must not look like a 503.
 */
export const tryStore = <A>(
  query: () => Promise<A>,
  options: TryStoreOptions = {},
): TE.TaskEither<StoreUnavailable, A> => storeCall((ok, fail) => void query().then(ok, fail), options)

/**
 * tryStore for a call that reports by callbacks (`start` calls `ok` or `fail` once, and is called
 * again for the one retry): the task's only promise is the one it returns, which is what the
 * request path on PostgreSQL pays for (bench/RESULTS.md).
 */
export const storeCall =
  <A>(
    start: (ok: (value: A) => void, fail: (error: unknown) => void) => void,
    options: TryStoreOptions = {},
  ): TE.TaskEither<StoreUnavailable, A> =>
  () =>
    new Promise((resolve, reject) => {
      let attempt = 1
      const ok = (value: A) => resolve(E.right(value))
      const fail = (error: unknown) => {
        const kind = classifyStoreError(error)
        if (kind === 'defect') return reject(error)
        if (kind === 'retry' && attempt === 1) {
          attempt++
          return begin()
        }
        report(options, error, attempt > 1)
        resolve(E.left(refusesWrites(error) ? storeRefusesWrites(error) : storeUnavailable(error)))
      }
      // What `start` throws is classified as what it fails with.
      const begin = () => {
        try {
          start(ok, fail)
        } catch (error) {
          fail(error)
        }
      }
      begin()
    })
