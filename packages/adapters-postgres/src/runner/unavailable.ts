import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import { storeRefusesWrites, storeUnavailable, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { recording, tracer } from './tracer.js'

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

// SQLSTATEs that mean "not now", never "wrong" (503 with Retry-After): the classes 08 (connection) and 53
// (resources), 57P0x (shutdown, idle session), 57014 (statement timeout, cancel), 25006 (read-only: a
// standby, a failover), 25P03 (idle in transaction), 55P03 (lock_timeout).
const UNAVAILABLE_SQLSTATES = new Set(['57014', '25006', '25P03', '55P03'])
const UNAVAILABLE_CLASSES = /^(08|53)[0-9A-Z]{3}$|^57P[0-9A-Z]{2}$/
// 40001 serialization_failure, 40P01 deadlock_detected: the transaction was rolled back whole, so
// running the same statement again is safe. Retried once; if it fails again, 503.
const RETRY_SQLSTATES = new Set(['40001', '40P01'])
const RECOVERY_MESSAGE = /recovery is in progress/

// A hot standby refusing a lock: 55000 with this message (55000 alone also means other states).
const inRecovery = ({ code, message }: { code?: unknown; message?: unknown }): boolean =>
  code === '55000' && typeof message === 'string' && RECOVERY_MESSAGE.test(message)

// pg reports its own timeouts and broken clients with plain Errors that carry no code.
const PG_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^timeout expired$/,
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

/** Classifies a database error (a bug is a `defect`), following `cause` and an AggregateError's `errors`. */
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

/** Whether an error means the store cannot serve now (a deadlock or serialization failure too), not a bug. */
export const isUnavailableError = (error: unknown): boolean => classifyStoreError(error) !== 'defect'

/** Whether the database answered but refuses writes: 25006 (a read-only transaction) or a hot standby's 55000. */
export const refusesWrites = (error: unknown, depth = 0): boolean => {
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
 * Runs a database call: unavailable becomes a left StoreUnavailable, reported once; a deadlock or a
 * serialization failure runs once more first (one statement: nothing was left behind); a bug is rethrown.
 */
export const tryStore = <A>(
  query: () => Promise<A>,
  options: TryStoreOptions = {},
): TE.TaskEither<StoreUnavailable, A> => storeCall((ok, fail) => void query().then(ok, fail), options)

/**
 * tryStore for a call that reports by callbacks (`start` calls `ok` or `fail` once, and again for the retry):
 * one promise per call (ARCHITECTURE.md, 'Made by hand, on purpose', row "statement path").
 */
export const storeCall = <A>(
  start: (ok: (value: A) => void, fail: (error: unknown) => void) => void,
  options: TryStoreOptions = {},
): TE.TaskEither<StoreUnavailable, A> => {
  // The caller's context, read when the port is called (the task may run a microtask later): the call's
  // statements, its retry and its warn line belong to it, whatever context manager the host has.
  const parent = context.active()
  return () =>
    new Promise((resolve, reject) => {
      let attempt = 1
      let retry: Span | undefined
      const ended = (error?: unknown) => {
        if (retry === undefined) return
        if (error !== undefined) retry.setStatus({ code: SpanStatusCode.ERROR })
        retry.end()
      }
      const ok = (value: A) => {
        ended()
        resolve(E.right(value))
      }
      const fail = (error: unknown) => {
        const kind = classifyStoreError(error)
        if (kind !== 'retry' || attempt > 1) ended(error)
        if (kind === 'defect') return reject(error)
        if (kind === 'retry' && attempt === 1) {
          attempt++
          if (!recording(parent)) return context.with(parent, begin)
          retry = tracer().startSpan(
            `retry ${options.operation ?? 'unknown'}`,
            {
              attributes: { 'retry.attempt': attempt, 'db.response.status_code': sqlstateOf(error) ?? '' },
            },
            parent,
          )
          return context.with(trace.setSpan(parent, retry), begin)
        }
        context.with(parent, () => report(options, error, attempt > 1))
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
      context.with(parent, begin)
    })
}
