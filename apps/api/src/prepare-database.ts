import {
  createPostgresApiKeyStore,
  type PostgresDatabase,
  isUnavailableError,
  migrateToLatest,
  MigrationsFromNewerReleaseError,
  MigrationsStoppedError,
  sqlstateOf,
  pendingMigrations,
  requireUtf8Database,
} from '@pets/adapters-postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { UsageError } from './commands/usage.js'
import { withDatabase } from './commands/with-database.js'
import type { AppConfig } from './config.js'
import { refusesSession } from './operational-failure.js'
import type { Logger } from './log/logger.js'
import { requireActiveKey } from './require-active-key.js'

// MIGRATE_ON_START=false: a schema behind the code would answer 500s while /readyz said 200, so the service
// refuses to start then. A database it cannot reach now is no reason not to start (it answers 503 and
// recovers when the database is back, as it would at any other time): the check is made once it answers.
// A database that does not keep UTF-8 is refused as the migrations refuse it (requireUtf8Database).
const requireMigrated = async (database: PostgresDatabase): Promise<void> => {
  await requireUtf8Database(database.db)
  const pending = await pendingMigrations(database.db)
  if (pending.length > 0)
    throw new UsageError(
      `the database's schema is not up to date (MIGRATE_ON_START=false; not run: ${pending.join(', ')}): ` +
        'run "animal-store migrate" first, or start with MIGRATE_ON_START=true',
    )
}

const FIRST_RETRY_MS = 500
const LAST_RETRY_MS = 5_000

// The check that the start could not make, made as soon as the database answers: every 0.5 s, then twice as
// long up to 5 s, on a connection of its own each time; its timers keep no process alive.
const checkOnceReachable = async (config: AppConfig, logger: Logger, signal: AbortSignal): Promise<void> => {
  for (let waitMs = FIRST_RETRY_MS; ; waitMs = Math.min(LAST_RETRY_MS, waitMs * 2)) {
    const stopped = await sleep(waitMs, false, { ref: false, signal }).catch(() => true)
    if (stopped) return
    try {
      await withDatabase(config, 'serve', requireMigrated)
      logger.info('migrations: up to date (checked once the database answered)')
      return
    } catch (error) {
      if (endsTheStart(error)) throw error
    }
  }
}

// What waiting for the database will not mend: a refusal of ours, a bug, or a session the server refuses for a
// role, password, database or CONNECT the operator must grant (a request's 503 at run time; the start's end here,
// as with MIGRATE_ON_START=true).
const endsTheStart = (error: unknown): boolean =>
  error instanceof UsageError || refusesSession(sqlstateOf(error)) || !isUnavailableError(error)

/** The schema check left for when the database answers, if the start could not make it. */
export type LateCheck = {
  /**
   * Calls `stop` with the status to end with if that check fails: 2 for a schema behind (its line then on
   * stderr, as a refused start prints it), 1 for anything else; both logged at fatal.
   */
  readonly whenItFails?: (stop: (status: number) => void) => void
  /** Gives the check up (the service is stopping): no connection is made after this. */
  readonly giveUp?: () => void
}

const lateCheckOf = (check: Promise<void>, logger: Logger, giveUp: () => void): LateCheck => {
  // Handled once the caller listens; until then a rejection is not "unhandled".
  check.catch(() => {})
  return {
    giveUp,
    whenItFails: (stop) =>
      void check.catch((error: unknown) => {
        const refused = error instanceof UsageError
        logger.fatal(refused ? { reason: error.message } : { err: error }, 'stopped on an error')
        if (refused) process.stderr.write(`animal-store: ${error.message}\n`)
        stop(refused ? 2 : 1)
      }),
  }
}

// A start that migrates, on a database that a newer release migrated (a rolling upgrade, or its rollback):
// once every migration this release knows has run, it runs beside that release, as MIGRATE_ON_START=false
// does, saying so; `animal-store migrate` of this release still refuses such a database. Returns whether a
// stop ended the wait for the migration lock.
const stoppedWhileMigrating = async (database: PostgresDatabase, logger: Logger, stopped?: AbortSignal) => {
  try {
    await migrateToLatest(
      database,
      (line) => logger.info(line),
      stopped === undefined ? {} : { signal: stopped },
    )
    return false
  } catch (error) {
    if (error instanceof MigrationsStoppedError) return true
    if (!(error instanceof MigrationsFromNewerReleaseError)) throw error
    await requireMigrated(database)
    logger.warn(
      { migrations: error.migrations },
      'migrations: the database was migrated by a newer release (it ran migrations this release does not ' +
        'know); every migration of this release has run, so it runs beside that release, migrating nothing',
    )
    return false
  }
}

/**
 * What runs once before the service listens, on a connection of its own: the migrations (unless
 * MIGRATE_ON_START=false, and then a check that none is pending) and, in production without API_KEYS, the
 * search for a stored key. So a service that cannot serve refuses to start before it takes the port.
 * Returns what to do when the schema check that a database unreachable at start left to do fails: the
 * caller then stops the service as a refused start would. `stopped` (a stop asked before the service was
 * ready) ends a wait for the migration lock with nothing migrated; migrations already running finish.
 */
export const prepareDatabase = async (
  config: AppConfig,
  logger: Logger,
  stopped?: AbortSignal,
): Promise<LateCheck> => {
  const storage = config.storage
  if (storage.kind !== 'postgres') return {}
  return withDatabase(config, 'serve', async (database) => {
    const { db } = database
    let deferred: Promise<void> | undefined
    let late: AbortController | undefined
    if (storage.migrateOnStart) {
      // Stopped before the start took the migration lock: nothing ran, and the caller ends the start.
      if (await stoppedWhileMigrating(database, logger, stopped)) return {}
    } else
      try {
        await requireMigrated(database)
      } catch (error) {
        if (endsTheStart(error)) throw error
        logger.warn(
          { err: error },
          'migrations: the database did not answer, so its schema was not checked; it will be once it answers',
        )
        late = new AbortController()
        deferred = checkOnceReachable(config, logger, late.signal)
      }
    if (config.env === 'production' && config.apiKeys.length === 0)
      await requireActiveKey(createPostgresApiKeyStore(db))
    return deferred === undefined || late === undefined
      ? {}
      : lateCheckOf(deferred, logger, () => late.abort())
  })
}
