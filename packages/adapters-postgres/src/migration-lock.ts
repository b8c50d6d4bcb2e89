import { sql, type Kysely } from 'kysely'
import { setTimeout as sleep } from 'node:timers/promises'
import { MIGRATION_LOCK } from './stores/advisory-locks.js'

// Polled rather than awaited with pg_advisory_lock, so that the pool's statement and query
// timeouts do not end the wait while another instance migrates.
const LOCK_POLL_MS = 100
const LOCK_WAIT_MS = 5 * 60_000

/**
 * The run was stopped (its AbortSignal aborted) before any migration was kept: nothing ran. `waiting`: while it
 * waited, for `waitingFor` (another session that held the migration lock, or a table another session locked).
 */
export class MigrationsStoppedError extends Error {
  override readonly name = 'MigrationsStoppedError'
  constructor(
    readonly waiting: boolean,
    readonly waitingFor = 'another instance that is migrating',
  ) {
    super(
      `Migrations did not run: stopped ${waiting ? `while waiting for ${waitingFor}` : 'before taking the migration lock'}.`,
    )
  }
}

/** Waits `ms`, or less when `signal` aborts meanwhile (the caller looks at the signal after it). */
export const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => {})

/** Lets the migration lock go. */
export const unlock = <DB>(connection: Kysely<DB>) =>
  sql`SELECT pg_advisory_unlock(${sql.lit(MIGRATION_LOCK)})`.execute(connection)

/**
 * Takes the migration lock, waiting up to 5 minutes for another session that holds it. A stop (`signal`
 * aborted) is heard between two tries; a try under way when it came lets the lock go again.
 */
export const acquireLock = async <DB>(
  connection: Kysely<DB>,
  log: (line: string) => void,
  signal?: AbortSignal,
) => {
  const giveUpAt = Date.now() + LOCK_WAIT_MS
  const stopped = () => signal?.aborted === true
  for (let attempt = 0; ; attempt++) {
    if (stopped()) throw new MigrationsStoppedError(attempt > 0)
    const { rows } = await sql<{ locked: boolean }>`
      SELECT pg_try_advisory_lock(${sql.lit(MIGRATION_LOCK)}) AS locked`.execute(connection)
    if (rows[0]?.locked === true && stopped()) {
      await unlock(connection)
      throw new MigrationsStoppedError(attempt > 0)
    }
    if (rows[0]?.locked === true) return
    if (attempt === 0) log('migrations: waiting for another instance that is migrating')
    if (Date.now() > giveUpAt)
      throw new Error(
        `Migrations did not run: another session held the migration lock (advisory lock ${MIGRATION_LOCK}) for over ${LOCK_WAIT_MS / 1000} s.`,
      )
    // An abort ends the pause early; the next turn throws.
    await pause(LOCK_POLL_MS, signal)
  }
}
