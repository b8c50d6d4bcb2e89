import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import { storeRefusesWrites, storeUnavailable, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { classifyStoreError, lostSession, refusesWrites, sqlstateOf } from './store-errors.js'
import { recording, tracer } from './tracer.js'

/** One call that the adapter answered `StoreUnavailable` (a 503): what it was, and why. */
export type UnavailableEvent = {
  /** The port method, such as `pets.add` or `creations.addOnce`. */
  readonly operation: string
  /** PostgreSQL's SQLSTATE, such as `57014`; absent when the server never answered (a network error, a timeout of pg's). */
  readonly sqlstate?: string
  /** Whether the call had been run once more (after a deadlock, a serialization failure, or a read's lost connection). */
  readonly retried: boolean
  readonly error: unknown
}

/** Told once of every call that answered StoreUnavailable. Must not throw (what it throws is dropped). */
export type OnUnavailable = (event: UnavailableEvent) => void

/** Told of every call that PostgreSQL served, before its caller has the answer: it must be cheap, and not throw. */
export type OnServed = () => void

/** Where a call is reported: its operation's name, and whom to tell; and whether it only reads. */
export type TryStoreOptions = {
  readonly operation?: string | undefined
  /**
   * The call only reads: when the connection under it is lost (the server ended the session, the socket
   * closed), it runs once more on another connection, as a deadlock's does. Never for a write: its commit
   * may have happened before the connection went.
   */
  readonly readOnly?: boolean | undefined
  /** Never run again, after any failure: a statement of a caller's transaction, which the failure aborted. */
  readonly once?: boolean | undefined
  readonly onUnavailable?: OnUnavailable | undefined
  readonly onServed?: OnServed | undefined
}

// Told to onUnavailable, and carried by the StoreUnavailable for the line of whoever answers it (the 503's).
const eventOf = (options: TryStoreOptions, error: unknown, retried: boolean): UnavailableEvent => {
  const sqlstate = sqlstateOf(error)
  return {
    operation: options.operation ?? 'unknown',
    ...(sqlstate === undefined ? {} : { sqlstate }),
    retried,
    error,
  }
}

const served = (onServed: OnServed) => {
  try {
    onServed()
  } catch {
    // a reporter that fails must not cost the call its answer
  }
}

const report = (options: TryStoreOptions, event: UnavailableEvent) => {
  try {
    options.onUnavailable?.(event)
  } catch {
    // a reporter that fails must not turn a 503 into a 500
  }
}

/**
 * Runs a database call: unavailable becomes a left StoreUnavailable, reported once; a deadlock or a
 * serialization failure runs once more first (one statement: nothing was left behind), and so does a read
 * whose connection was lost (`readOnly`); a bug is rethrown.
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
        if (options.onServed !== undefined) served(options.onServed)
        resolve(E.right(value))
      }
      const fail = (error: unknown) => {
        const kind = classifyStoreError(error)
        const again =
          attempt === 1 &&
          options.once !== true &&
          (kind === 'retry' || (kind === 'unavailable' && options.readOnly === true && lostSession(error)))
        if (!again) ended(error)
        if (kind === 'defect') return reject(error)
        if (again) {
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
        const event = eventOf(options, error, attempt > 1)
        context.with(parent, () => report(options, event))
        const failure = refusesWrites(error) ? storeRefusesWrites(error) : storeUnavailable(error)
        const { operation, sqlstate = null, retried } = event
        resolve(E.left({ ...failure, details: { operation, sqlstate, retried } }))
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
