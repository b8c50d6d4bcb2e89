import type { OnServed, OnUnavailable, TryStoreOptions } from './unavailable.js'

/** What every adapter of this package may be given besides its kysely handle. */
export type PostgresAdapterOptions = {
  /** Told once of each call answered `StoreUnavailable` (a 503); silent unless given. */
  readonly onUnavailable?: OnUnavailable | undefined
  /** Told of each call PostgreSQL served (so that an outage's end is seen); silent unless given. */
  readonly onServed?: OnServed | undefined
  /**
   * `lock_timeout` set inside each write, so that it holds where a pooler dropped the session's; 500 ms
   * unless given (or the handle's `lockTimeoutMs`), 0 for no limit.
   */
  readonly lockTimeoutMs?: number | undefined
  /**
   * Every insert of pets takes the ordering lock alone (PET_INSERT_LOCK), as releases before migration 0008
   * did, instead of registering an intent and taking it shared: while such a release serves beside this one
   * (a rolling upgrade from it), since its listings read no intents and would pass the ids of inserts that
   * commit out of order. False unless given.
   */
  readonly insertsAlone?: boolean | undefined
}

/** The `lock_timeout`, in milliseconds, of an adapter given none of its own and a handle without one. */
export const DEFAULT_LOCK_TIMEOUT_MS = 500

/** What a call's statements run in: the pool, or a caller's transaction (kysely's `isTransaction`). */
export type CallsIn = { readonly isTransaction: boolean }

/**
 * How tryStore reports a call of `operation` for an adapter made with `options`. In a caller's transaction
 * (`db`) a failed statement aborted the whole transaction, so nothing is run again there: a second statement
 * would meet 25P02 ("current transaction is aborted"), and the caller must begin anew.
 */
export const reportAs = (
  options: PostgresAdapterOptions,
  operation: string,
  db?: CallsIn,
): TryStoreOptions => ({
  operation,
  ...(db?.isTransaction === true ? { once: true } : {}),
  ...(options.onUnavailable === undefined ? {} : { onUnavailable: options.onUnavailable }),
  ...(options.onServed === undefined ? {} : { onServed: options.onServed }),
})

/** reportAs for a call that only reads: it runs once more when its connection is lost under it (unavailable.ts). */
export const readAs = (
  options: PostgresAdapterOptions,
  operation: string,
  db?: CallsIn,
): TryStoreOptions => ({
  ...reportAs(options, operation, db),
  readOnly: true,
})
