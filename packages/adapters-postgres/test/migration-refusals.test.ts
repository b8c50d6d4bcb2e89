import { sql } from 'kysely'
import { afterAll, describe, expect, inject, it } from 'vitest'
import {
  MIGRATION_LOCK,
  migrateToLatest,
  MigrationsFromNewerReleaseError,
  MigrationsStoppedError,
  migrations,
  pendingMigrations,
} from '../src/index.js'
import { startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const FUTURE = '2099-01-01-0010-future'
// The advisory lock that kysely's Migrator takes on PostgreSQL (PostgresAdapter.acquireMigrationLock).
const KYSELY_MIGRATION_LOCK = '3853314791062309107'
const NEWER =
  `Migrations did not run: the database was migrated by a newer release of the service (it ran ${FUTURE}, ` +
  'which this release does not know). Run that release or a later one, or restore the database from a ' +
  'backup taken before it migrated.'

let started: Promise<TestPgBouncer> | undefined
const bouncer = () => (started ??= startTestPgBouncer(inject('postgres').url))
afterAll(async () => {
  await (await started)?.stop()
})

describe('migrateToLatest on a database it cannot bring up to date', () => {
  const { open, session } = useFreshDatabases()

  it('refuses a database that a newer release migrated, naming what it ran, directly and through a pooler', async () => {
    const direct = await open()
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${FUTURE}, now()::text)`.execute(
      direct.db,
    )
    const refused = migrateToLatest(direct)
    await expect(refused).rejects.toBeInstanceOf(MigrationsFromNewerReleaseError)
    await expect(refused).rejects.toThrow(NEWER)
    await expect(refused).rejects.toMatchObject({ migrations: [FUTURE] })
    // Not "use a direct connection": the read that finds it is safe through a pooler.
    const pooled = await open({ through: await bouncer() })
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${FUTURE}, now()::text)`.execute(
      pooled.db,
    )
    await expect(migrateToLatest(pooled)).rejects.toThrow(NEWER)
  })

  it('refuses it also when the newer release migrated while this one waited for the lock', async () => {
    const fresh = await open({ empty: true })
    const newer = await session(fresh)
    await newer.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    let isWaiting = () => {}
    const waitingForTheLock = new Promise<void>((resolve) => (isWaiting = resolve))
    const waiting = migrateToLatest(fresh, (line) => {
      if (line.includes('waiting for another instance')) isWaiting()
    })
    waiting.catch(() => {})
    // Past its first read (which found nothing to refuse), it waits for the lock.
    await waitingForTheLock
    // The newer release's run, as this one waits: its table, and a migration this release does not know.
    await newer.query(
      'CREATE TABLE kysely_migration (name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)',
    )
    await newer.query('INSERT INTO kysely_migration (name, timestamp) VALUES ($1, now()::text)', [FUTURE])
    await newer.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    await expect(waiting).rejects.toThrow(NEWER)
  })

  it('says which migration failed, with why as its cause, not repeated in its message', async () => {
    const database = await open()
    // The tables are there, but their migrations are not recorded: the first one fails (42P07).
    await sql`DELETE FROM kysely_migration`.execute(database.db)
    const first = Object.keys(migrations)[0]!
    const error = await migrateToLatest(database).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.message).toBe(`Migration ${first} failed, so no migration of this run was applied`)
    expect(error?.cause).toMatchObject({ code: '42P07' })
    expect(await pendingMigrations(database.db)).toEqual(Object.keys(migrations))
  })

  it('stops without the lock when its signal aborts while it waits for another instance: nothing ran', async () => {
    const fresh = await open({ empty: true })
    const other = await session(fresh)
    await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    const stop = new AbortController()
    const stopped = migrateToLatest(
      fresh,
      (line) => {
        if (line.includes('waiting for another instance')) stop.abort()
      },
      { signal: stop.signal },
    )
    await expect(stopped).rejects.toBeInstanceOf(MigrationsStoppedError)
    await expect(stopped).rejects.toMatchObject({
      waiting: true,
      message: 'Migrations did not run: stopped while waiting for another instance that is migrating.',
    })
    await other.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    // It holds no lock, and migrated nothing.
    expect((await other.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])).rows).toEqual([
      { locked: true },
    ])
    expect(await pendingMigrations(fresh.db)).toEqual(Object.keys(migrations))
  })

  it('finishes the migrations under way when its signal aborts during them, and says so at once', async () => {
    const fresh = await open({ empty: true })
    const other = await session(fresh)
    // kysely's own lock, which its Migrator takes once ours is held: the run waits there, past our lock.
    await other.query('SELECT pg_advisory_lock($1)', [KYSELY_MIGRATION_LOCK])
    const stop = new AbortController()
    const lines: Array<string> = []
    const running = migrateToLatest(fresh, (line) => lines.push(line), { signal: stop.signal })
    running.catch(() => {})
    const waits = async () =>
      (
        await other.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rowCount
    await expect
      .poll(waits, {
        interval: 20,
        timeout: 10_000,
        message: "the run waits for kysely's migration lock (has kysely changed its lock's id?)",
      })
      .toBe(1)
    stop.abort()
    expect(lines).toEqual([
      'migrations: asked to stop; the migrations under way finish first (one transaction)',
    ])
    await other.query('SELECT pg_advisory_unlock($1)', [KYSELY_MIGRATION_LOCK])
    expect(await running).toEqual(Object.keys(migrations))
    expect(lines.at(-1)).toBe(`migrations: ran ${Object.keys(migrations).join(', ')}`)
    expect(await pendingMigrations(fresh.db)).toEqual([])
  })

  it('runs nothing once its signal has aborted, though nobody holds the lock', async () => {
    const fresh = await open({ empty: true })
    await expect(migrateToLatest(fresh, () => {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'MigrationsStoppedError',
      waiting: false,
    })
    expect(await pendingMigrations(fresh.db)).toEqual(Object.keys(migrations))
  })
})
