import { Migrator, sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  migrateToLatest,
  MigrationsLockedOutError,
  MigrationsStoppedError,
  migrations,
  pendingMigrations,
} from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const LAST_OF_0009 = '2026-11-26-0009-replays-beside-busy-keys'

// 0010 alters `pets` (its id's bound), which needs the table to itself: a transaction that read it holds it back.
describe('migrations that need a table another session holds locked', () => {
  const { open, track } = useFreshDatabases()

  // A database as 0009 left it, its sessions waiting 300 ms at most for a lock, and a transaction of another
  // application's that has read `pets` and stays open until `end` is called.
  const lockedBy0009 = async (options: { lockTimeoutMs?: number; poolSize?: number } = {}) => {
    const fresh = await open({ empty: true, lockTimeoutMs: 300, ...options })
    const before = new Migrator({ db: fresh.db, provider: { getMigrations: async () => migrations } })
    expect((await before.migrateTo(LAST_OF_0009)).error).toBeUndefined()
    const other = new pg.Client({ connectionString: fresh.url, application_name: 'a report' })
    // The database is dropped after the test, ending this session too: no uncaught 57P01 then.
    other.on('error', () => {})
    await other.connect()
    track({ close: () => other.end() })
    await other.query('BEGIN')
    await other.query('SELECT count(*) FROM pets')
    const pid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
    return { fresh, pid, end: () => other.query('COMMIT') }
  }

  // Each try's wait for the table queues every statement on it behind the migrations: kept short.
  it("hold others' statements on the table back 100 ms at most, whatever the session's lock_timeout", async () => {
    // One connection in the pool: the session that migrates is the one asked for its lock_timeout after.
    const { fresh, end } = await lockedBy0009({ lockTimeoutMs: 5_000, poolSize: 1 })
    const reader = new pg.Client({ connectionString: fresh.url, application_name: 'the service' })
    reader.on('error', () => {})
    await reader.connect()
    track({ close: () => reader.end() })
    const refused = migrateToLatest(fresh, () => {}, { lockWaitMs: 2_500 }).catch((error: unknown) => error)
    const waits: Array<number> = []
    for (const until = performance.now() + 2_500; performance.now() < until;) {
      const started = performance.now()
      await reader.query('SELECT count(*) FROM pets')
      waits.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(await refused).toBeInstanceOf(MigrationsLockedOutError)
    // Queued behind a try once at least (it waited 5 s before, the session's lock_timeout), never for long.
    expect(Math.max(...waits)).toBeGreaterThan(20)
    expect(Math.max(...waits)).toBeLessThan(2_000)
    const { rows } = await sql<{ lock_timeout: string }>`SHOW lock_timeout`.execute(fresh.db)
    expect(rows).toEqual([{ lock_timeout: '5s' }])
    await end()
  })

  it('try again until the transaction ends, saying who holds the table, and are then applied', async () => {
    const { fresh, pid, end } = await lockedBy0009()
    const lines: Array<string> = []
    const migrating = migrateToLatest(fresh, (line) => void lines.push(line))
    // Refused once at least (300 ms), then a pause of 2 s: the report ends meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    await end()
    expect(await migrating).toEqual(['2026-11-27-0010-pet-ids-within-json', '2026-11-27-0011-list-pets'])
    expect(lines[0]).toMatch(
      new RegExp(
        `^migrations: a table they change is locked by another session \\(pid ${pid} \\(application "a report", idle in transaction, in a transaction for \\d+ s: "SELECT pg_backend_pid\\(\\) AS pid"\\)\\): trying again every 2 s, for up to 300 s$`,
      ),
    )
    expect(await pendingMigrations(fresh.db)).toEqual([])
  })

  it('give up after lockWaitMs, naming the session in the way; nothing is applied', async () => {
    const { fresh, pid, end } = await lockedBy0009()
    const refused = migrateToLatest(fresh, () => {}, { lockWaitMs: 2_500 })
    await expect(refused).rejects.toBeInstanceOf(MigrationsLockedOutError)
    await expect(refused).rejects.toThrow(
      new RegExp(
        `^Migrations did not run: for 3 s \\(\\d tr(?:y|ies)\\) a table they change was locked by another session: pid ${pid} \\(application "a report"`,
      ),
    )
    expect(await pendingMigrations(fresh.db)).toHaveLength(2)
    await end()
    expect(await migrateToLatest(fresh)).toHaveLength(2)
  })

  it('stop between two tries when asked, nothing applied', async () => {
    const { fresh, end } = await lockedBy0009()
    const stop = new AbortController()
    const lines: Array<string> = []
    // Asked to stop as it says who holds the table: it does not claim to finish first, it stops.
    const log = (line: string) => void (lines.push(line), stop.abort())
    const migrating = migrateToLatest(fresh, log, { signal: stop.signal })
    await expect(migrating).rejects.toBeInstanceOf(MigrationsStoppedError)
    await expect(migrating).rejects.toThrow(
      'Migrations did not run: stopped while waiting for a table another session held locked.',
    )
    expect(lines).toEqual([expect.stringMatching(/^migrations: a table they change is locked by another/)])
    await end()
    expect(await pendingMigrations(fresh.db)).toHaveLength(2)
    // The migration lock was let go: a next run takes it.
    expect(await migrateToLatest(fresh)).toHaveLength(2)
    await sql`SELECT 1`.execute(fresh.db)
  })
})
