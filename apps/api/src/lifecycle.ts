/** Where the service is in its life: serving, or draining once shutdown has begun. */
export type Lifecycle = {
  readonly draining: () => boolean
  /** Turns /readyz to 503 from now on; the service still answers every other request. */
  readonly drain: () => void
}

/** A lifecycle that starts serving. */
export const createLifecycle = (): Lifecycle => {
  let draining = false
  return {
    draining: () => draining,
    drain: () => {
      draining = true
    },
  }
}

/**
 * At shutdown, once the requests are over (finished, or cut when SHUTDOWN_GRACE_MS ran out): how long writing
 * the last usage counts and closing the storage may take, apart from the grace. With the default timeouts a
 * database that does not answer costs about 1 s a statement (DATABASE_CONNECT_TIMEOUT_MS, then
 * DATABASE_STATEMENT_TIMEOUT_MS and 250 ms), and a cut request's statement is waited for as well.
 */
export const STORAGE_CLOSE_MS = 5_000
