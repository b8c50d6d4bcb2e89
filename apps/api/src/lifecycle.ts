import { exitAfterFlush, type Logger } from './log/logger.js'

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
 * How soon after a stop signal another one is the same stop delivered twice, not an operator's second: a
 * terminal's Ctrl-C reaches every process of its group, `pnpm start` among them, which passes its own on to
 * the service; systemd's default KillMode=control-group and `kill -- -PGID` signal every process alike. Those
 * come within milliseconds of the first; a person's second Ctrl-C comes later.
 */
export const SAME_STOP_MS = 1_000

/**
 * Passes each SIGTERM or SIGINT on to `handle`, but one that comes within SAME_STOP_MS of the last one passed
 * on, which goes to `echo` instead: without it, a Ctrl-C under `pnpm start` was a second signal, and exited
 * at once with the requests in flight.
 */
export const withoutEchoes = (
  handle: (signal: NodeJS.Signals) => void,
  echo: (signal: NodeJS.Signals) => void,
): ((signal: NodeJS.Signals) => void) => {
  let passedAt = Number.NEGATIVE_INFINITY
  return (signal) => {
    const now = performance.now()
    if (now - passedAt < SAME_STOP_MS) return echo(signal)
    passedAt = now
    handle(signal)
  }
}

/** The line of a signal taken as the first's echo (withoutEchoes). */
export const logEcho = (logger: Logger) => (signal: NodeJS.Signals) =>
  logger.info(
    { signal, sameStopMs: SAME_STOP_MS },
    'signal again at once: taken as the same stop (a terminal or a supervisor signalled every process of the group)',
  )

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
