import type { OnUnavailable, TryStoreOptions } from './unavailable.js'

/** What every adapter of this package may be given besides its kysely handle. */
export type PostgresAdapterOptions = {
  /**
   * Told once of each call answered `StoreUnavailable` (a 503), with its operation and SQLSTATE:
   * for a warning in the host's log. Silent unless given.
   */
  readonly onUnavailable?: OnUnavailable
  /**
   * `lock_timeout` set inside each write that waits for the id-ordering lock, so that it holds
   * even where the session's own settings were dropped (a transaction pooler); 500 ms unless
   * given, and on a handle made by createPostgresDatabase its own `lockTimeoutMs`; 0 for no limit.
   */
  readonly lockTimeoutMs?: number
}

export const DEFAULT_LOCK_TIMEOUT_MS = 500

/** How tryStore reports a call of `operation` for an adapter made with `options`. */
export const reportAs = (options: PostgresAdapterOptions, operation: string): TryStoreOptions => ({
  operation,
  ...(options.onUnavailable === undefined ? {} : { onUnavailable: options.onUnavailable }),
})
