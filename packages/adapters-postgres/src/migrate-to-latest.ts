import { Migrator, sql, type Kysely, type MigrationResult } from 'kysely'
import { acquireLock, MigrationsStoppedError, unlock } from './migration-lock.js'
import { retryingShortLockWaits } from './migration-lock-waits.js'
import type { StatementRunner } from './runner/index.js'
import { migrations } from './migrations/index.js'

export { MigrationsStoppedError } from './migration-lock.js'
export { MigrationsLockedOutError } from './migration-lock-waits.js'

/** Prints a line about the migrations; silent unless given. */
export type MigrationLog = (line: string) => void

/** Migrations need a session, and the handle they were given goes through a connection pooler. */
export class MigrationsNeedSessionError extends Error {
  override readonly name = 'MigrationsNeedSessionError'
}

/**
 * The database ran migrations that this release does not know: a newer release migrated it. Nothing ran, since
 * the migrations only go forward; its `migrations` are the unknown ones.
 */
export class MigrationsFromNewerReleaseError extends Error {
  override readonly name = 'MigrationsFromNewerReleaseError'
  constructor(readonly migrations: ReadonlyArray<string>) {
    super(
      `Migrations did not run: the database was migrated by a newer release of the service (it ran ` +
        `${migrations.join(', ')}, which this release does not know). Run that release or a later one, or ` +
        'restore the database from a backup taken before it migrated.',
    )
  }
}

/** The database's encoding cannot hold every name the service accepts. */
export class DatabaseEncodingError extends Error {
  override readonly name = 'DatabaseEncodingError'
}

/**
 * Throws a DatabaseEncodingError unless the database keeps text as UTF-8: with SQL_ASCII, lengths count bytes
 * (a name of 60 emoji is "over 100 characters"); with LATIN1 and the like, a name outside it cannot be stored.
 */
export const requireUtf8Database = async <DB>(db: Kysely<DB>): Promise<void> => {
  const { rows } = await sql<{ encoding: string; database: string }>`
    SELECT current_setting('server_encoding') AS encoding, current_database() AS database`.execute(db)
  const { encoding, database } = rows[0]!
  if (encoding !== 'UTF8')
    throw new DatabaseEncodingError(
      `the database "${database}" keeps text as ${encoding}, and the service needs UTF8 to store every name ` +
        `as sent: create it with "createdb --encoding=UTF8 --template=template0 ${database}"`,
    )
}

/**
 * Runs every pending migration in one transaction, under a session advisory lock so that instances may start
 * together, and returns their names. A database that does not keep UTF-8 is refused first (DatabaseEncodingError),
 * then one that a newer release migrated (MigrationsFromNewerReleaseError). Through a pooler only an up-to-date
 * schema passes (one read); else a MigrationsNeedSessionError, since a session lock would stay on a server
 * connection. A migration that fails is the `cause` of the error thrown. A table they change that another
 * session holds locked rolls the run back, tried again every 2 s for up to `lockWaitMs`, then a
 * MigrationsLockedOutError naming that session (migration-lock-waits.ts). Once `signal` aborts, a run that has not
 * taken the lock yet (waiting for another instance, say) stops without it: a MigrationsStoppedError, nothing ran.
 * A run that took it logs at once that it finishes (its migrations are one transaction), and does, unless it is
 * waiting for such a table: then it stops at the next try refused, a MigrationsStoppedError too.
 */
export const migrateToLatest = async <DB>(
  target: Kysely<DB> | { readonly db: Kysely<DB>; readonly runner: Pick<StatementRunner, 'connectionFacts'> },
  log: MigrationLog = () => {},
  {
    signal,
    lockWaitMs,
  }: {
    readonly signal?: AbortSignal | undefined
    /** How long to keep trying for a table that another session holds locked: 5 minutes unless given. */
    readonly lockWaitMs?: number | undefined
  } = {},
): Promise<ReadonlyArray<string>> => {
  // A kysely instance made elsewhere is taken to reach PostgreSQL itself.
  const [db, throughPooler] =
    'runner' in target
      ? [target.db, async () => (await target.runner.connectionFacts()).pooler]
      : [target, async () => false]
  return db.connection().execute(async (connection) => {
    await requireUtf8Database(connection)
    // The usual start: one read, without a lock, safe through a pooler; a table missing takes the whole way
    // below, which migrates or says what is wrong.
    const ran = await ranMigrations(connection)
    // As kysely would refuse it, but through a pooler too, and saying why.
    const unknown = ran.filter((name) => !KNOWN.has(name))
    if (unknown.length > 0) throw new MigrationsFromNewerReleaseError(unknown)
    if (ran.length === KNOWN.size) {
      log('migrations: up to date')
      return []
    }
    if (await throughPooler())
      throw new MigrationsNeedSessionError(
        'Migrations did not run: they hold session advisory locks, and this connection goes through a ' +
          'connection pooler (PgBouncer?), which would leave the locks on a server connection. Run them on a ' +
          'direct connection to PostgreSQL: set DATABASE_DIRECT_URL (or run `animal-store migrate` with ' +
          'DATABASE_URL on PostgreSQL itself).',
      )
    await acquireLock(connection, log, signal)
    // From here a stop waits for the migrations: said at once, since they may run for long. Between two tries
    // for a locked table, it ends the run at once, with its own error.
    let between = false
    const finishing = () => {
      if (!between) log('migrations: asked to stop; the migrations under way finish first (one transaction)')
    }
    signal?.addEventListener('abort', finishing, { once: true })
    let failed = true
    try {
      // A newer release may have migrated while this one waited for the lock.
      const newer = (await ranMigrations(connection)).filter((name) => !KNOWN.has(name))
      if (newer.length > 0) throw new MigrationsFromNewerReleaseError(newer)
      // A table they change locked by a long transaction: tried again, never queued behind it for long.
      const stopped = () => new MigrationsStoppedError(true, 'a table another session held locked')
      const names = await retryingShortLockWaits(connection, () => run(connection, log), log, stopped, {
        signal,
        waitMs: lockWaitMs,
        waiting: (now) => void (between = now),
      })
      failed = false
      return names
    } finally {
      signal?.removeEventListener('abort', finishing)
      // When the run failed, its error matters more than a failure to unlock; a broken connection
      // releases the lock anyway.
      await unlock(connection).catch((error: unknown) => {
        if (!failed) throw error
      })
    }
  })
}

// kysely's default table of the migrations that ran, one row each.
const RAN = sql<{ name: string }>`SELECT name FROM kysely_migration`

const KNOWN: ReadonlySet<string> = new Set(Object.keys(migrations))

const ranMigrations = async <DB>(connection: Kysely<DB>): Promise<ReadonlyArray<string>> => {
  try {
    return (await RAN.execute(connection)).rows.map((row) => row.name)
  } catch {
    // No such table yet (an empty database), or no right to read it: the whole way decides.
    return []
  }
}

/**
 * The migrations of this package that the database has not run (every one when it has no table of them yet),
 * in their order: one read, safe through a pooler. What cannot reach the database throws.
 */
export const pendingMigrations = async <DB>(db: Kysely<DB>): Promise<ReadonlyArray<string>> => {
  const known = Object.keys(migrations)
  try {
    const ran = new Set((await RAN.execute(db)).rows.map((row) => row.name))
    return known.filter((name) => !ran.has(name))
  } catch (error) {
    // 42P01 undefined_table: an empty database.
    if ((error as { code?: unknown }).code === '42P01') return known
    throw error
  }
}

const run = async <DB>(connection: Kysely<DB>, log: MigrationLog): Promise<ReadonlyArray<string>> => {
  const migrator = new Migrator({
    db: connection,
    provider: { getMigrations: async () => ({ ...migrations }) },
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) throw failure(error, results)
  const ran = results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
  log(ran.length === 0 ? 'migrations: up to date' : `migrations: ran ${ran.join(', ')}`)
  return ran
}

// kysely runs all pending migrations in one transaction, so when one fails none of them is kept. Why it failed
// is the cause, not repeated here: pino, as VError, writes a message followed by its causes' messages.
const failure = (error: unknown, results: ReadonlyArray<MigrationResult>): Error => {
  const failed = results.find((r) => r.status === 'Error')
  return new Error(
    failed === undefined
      ? 'Migrations did not run'
      : `Migration ${failed.migrationName} failed, so no migration of this run was applied`,
    { cause: error },
  )
}
