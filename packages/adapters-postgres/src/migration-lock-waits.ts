import { sql, type Kysely } from 'kysely'
import { pause } from './migration-lock.js'
import { sqlstateOf } from './runner/index.js'

/** How long migrations keep trying for the locks of the tables they change (as for the migration lock). */
export const TABLE_LOCK_WAIT_MS = 5 * 60_000
/** The pause between two tries: the service's traffic goes on between them. */
export const TABLE_LOCK_RETRY_MS = 2_000
/**
 * How long a try waits for a table's lock: the service's statements on that table queue behind the wait, so
 * it is short, whatever the session's own lock_timeout (500 ms for the service's pool, often none for others).
 */
export const TABLE_LOCK_TRY_MS = 100

/** Migrations did not run: for TABLE_LOCK_WAIT_MS other sessions held a lock of a table they change. */
export class MigrationsLockedOutError extends Error {
  override readonly name = 'MigrationsLockedOutError'
}

type Holder = { pid: number; application: string; seconds: number; state: string; query: string }

// The sessions that hold a lock on a table of this database, in a transaction begun before this one's wait:
// the longest first. What their statement says is cut to 100 characters (a query may carry values).
const HOLDERS = sql<Holder>`
  SELECT a.pid, a.application_name AS application, a.state, left(a.query, 100) AS query,
         floor(extract(epoch FROM clock_timestamp() - a.xact_start))::int AS seconds
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
     AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'relation' AND l.granted)
   ORDER BY a.xact_start
   LIMIT 3`

const describeHolders = (holders: ReadonlyArray<Holder>): string =>
  holders.length === 0
    ? 'no session holds one now'
    : holders
        .map(
          (h) =>
            `pid ${h.pid} (application "${h.application}", ${h.state}, in a transaction for ${h.seconds} s: ` +
            `${JSON.stringify(h.query)})`,
        )
        .join('; ')

type RetryOptions = {
  readonly signal?: AbortSignal | undefined
  readonly waitMs?: number | undefined
  /** Told `true` once a try is refused (a stop then ends the run at once), `false` as the next begins. */
  readonly waiting?: ((between: boolean) => void) | undefined
}

// Runs `attempt` again while a lock of a table is not granted (retryingShortLockWaits).
const retryingLockWaits = async <A, DB>(
  connection: Kysely<DB>,
  attempt: () => Promise<A>,
  log: (line: string) => void,
  stopped: () => Error,
  { signal, waitMs = TABLE_LOCK_WAIT_MS, waiting = () => {} }: RetryOptions,
): Promise<A> => {
  const giveUpAt = Date.now() + waitMs
  for (let tries = 1; ; tries++) {
    try {
      waiting(false)
      return await attempt()
    } catch (error) {
      if (!lockNotGranted(error)) throw error
      waiting(true)
      const holders = describeHolders((await HOLDERS.execute(connection)).rows)
      if (Date.now() + TABLE_LOCK_RETRY_MS > giveUpAt)
        throw new MigrationsLockedOutError(
          `Migrations did not run: for ${Math.round(waitMs / 1000)} s (${tries} ${tries === 1 ? 'try' : 'tries'}) a table they change was ` +
            `locked by another session: ${holders}. End that transaction, or migrate again once it ends.`,
          { cause: error },
        )
      if (tries === 1)
        log(
          `migrations: a table they change is locked by another session (${holders}): trying again every ` +
            `${TABLE_LOCK_RETRY_MS / 1000} s, for up to ${Math.round(waitMs / 1000)} s`,
        )
      await pause(TABLE_LOCK_RETRY_MS, signal)
      if (signal?.aborted === true) throw stopped()
    }
  }
}

// The session's lock_timeout as it was; TABLE_LOCK_TRY_MS from now on, unless the session's is shorter.
const SHORTEN_LOCK_WAITS = sql<{ before: string }>`
  SELECT before, set_config('lock_timeout', CASE
      WHEN before <> '0' AND before::interval < interval '${sql.raw(String(TABLE_LOCK_TRY_MS))} ms' THEN before
      ELSE '${sql.raw(String(TABLE_LOCK_TRY_MS))}ms' END, false)
    FROM (SELECT current_setting('lock_timeout') AS before) AS session`

// Runs `run` with the session of `connection` waiting TABLE_LOCK_TRY_MS at most for a lock, then as it was.
const withShortLockWaits = async <A, DB>(connection: Kysely<DB>, run: () => Promise<A>): Promise<A> => {
  const { before } = (await SHORTEN_LOCK_WAITS.execute(connection)).rows[0]!
  try {
    return await run()
  } finally {
    // On a broken connection, the run's own error is the one to see (and the connection leaves the pool).
    await sql`SELECT set_config('lock_timeout', ${before}, false)`.execute(connection).catch(() => {})
  }
}

/**
 * Runs `attempt` (the migrations, one transaction) with the session of `connection` waiting TABLE_LOCK_TRY_MS
 * at most for a lock, then as it was, and again while a lock of a table they change is not granted (55P03: a
 * long transaction holds it), every TABLE_LOCK_RETRY_MS for up to `waitMs` (TABLE_LOCK_WAIT_MS). Each try
 * holds the service's statements on that table back for TABLE_LOCK_TRY_MS at most, as a wait without a timeout
 * would for the whole transaction in the way. Says once who holds the locks; a stop (`signal`) ends the
 * waiting with `stopped()`, whose error is thrown.
 */
export const retryingShortLockWaits = <A, DB>(
  connection: Kysely<DB>,
  attempt: () => Promise<A>,
  log: (line: string) => void,
  stopped: () => Error,
  options: RetryOptions = {},
): Promise<A> =>
  withShortLockWaits(connection, () => retryingLockWaits(connection, attempt, log, stopped, options))

// 55P03 lock_not_available, anywhere in the error's causes (kysely's error, or ours around it).
const lockNotGranted = (error: unknown): boolean => sqlstateOf(error) === '55P03'
