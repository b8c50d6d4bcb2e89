import { exitAfterFlush, type Logger } from './logger.js'

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

/**
 * A stop asked before the service listens (while it migrates, waits for another instance's migrations or
 * checks the schema): nothing was served, and a migration under way is rolled back whole (one transaction), so
 * the start ends there, as a clean stop: one line, exit 0.
 */
export const stopBeforeReady = (logger: Logger, reason: string, during: string): void => {
  logger.info({ outcome: 'not-ready', reason, during, exitCode: 0 }, 'stopped before it was ready')
  exitAfterFlush(logger, 0)
}

/**
 * The last line of a stop, at the level of its exit status, then the exit: 0 at info; 1 (requests cut, the
 * storage late, a worker that did not stop cleanly) at warn; a stop the service decided itself on an error
 * (`failed`, such as 2 for a schema found behind once the database answered) at error, `outcome: failed`.
 */
export const exitStopped = (
  logger: Logger,
  fields: {
    readonly outcome: string
    readonly reason: string
    readonly cut?: number
    readonly failed?: number
  },
): void => {
  const { failed, ...rest } = fields
  const exitCode = failed ?? (fields.outcome === 'clean' ? 0 : 1)
  if (failed !== undefined) logger.error({ ...rest, outcome: 'failed', exitCode }, 'stopped')
  else if (exitCode === 0) logger.info({ ...rest, exitCode }, 'stopped')
  else logger.warn({ ...rest, exitCode }, 'stopped')
  // The lines still in the log's buffer are written before the process ends.
  exitAfterFlush(logger, exitCode)
}
