import type { PageCursor, PetId, PetListing, PetName } from '@pets/domain'
import { aPetData, describePetRepositoryContract, pollUntil, run, runLeft } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { describe, expect, inject, it } from 'vitest'
import {
  createPostgresDatabase,
  createPostgresPetRepository,
  migrateToLatest,
  pendingMigrations,
  migrations,
  tryStore,
  fromKysely,
} from '../src/index.js'
import { openFreshDatabase } from '../src/testing/index.js'
import { patient } from './support/patient.js'
import { withAdminClient } from '../src/testing/with-admin-client.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const postgres = inject('postgres')

describePetRepositoryContract('postgres', async () => {
  const fresh = await openFreshDatabase(postgres)
  return { repo: createPostgresPetRepository(fresh), close: fresh.close }
})

const everything: PetListing = { limit: 100, after: 0 as PageCursor }
const unavailable = expect.objectContaining({ _tag: 'StoreUnavailable' })
describe('postgres pet repository', () => {
  const { open, track } = useFreshDatabases()

  it("in a caller's transaction takes the ordering lock alone: a pet added meanwhile waits for it", async () => {
    const handle = await open()
    const { db } = handle
    const repo = createPostgresPetRepository(handle)
    let commit!: () => void
    let inserted!: () => void
    const held = new Promise<void>((resolve) => (commit = resolve))
    const firstInserted = new Promise<void>((resolve) => (inserted = resolve))
    const first = db.transaction().execute(async (trx) => {
      const pet = await run(
        createPostgresPetRepository(fromKysely(trx)).add(aPetData({ name: 'first' as PetName })),
      )
      inserted()
      await held
      return pet
    })
    await firstInserted
    // Without the ordering, the second insert commits at once with the larger id, and a reader
    // who sees it has passed over the first, which appears only later.
    let secondDone = false
    const second = run(repo.add(aPetData({ name: 'second' as PetName }))).then(async (pet) => {
      secondDone = true
      return { pet, seen: await run(repo.list(everything)) }
    })
    await pollUntil('the second insert waits for the ordering lock', async () => {
      const waiting = await sql`SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
        AND wait_event_type = 'Lock' AND wait_event = 'advisory'`.execute(db)
      return waiting.rows.length > 0
    })
    expect(secondDone).toBe(false)
    commit()
    const [a, b] = await Promise.all([first, second])
    expect(b.pet.id).toBeGreaterThan(a.id)
    expect(b.seen.map((p) => p.name)).toEqual(['first', 'second'])
  })

  it('keeps ids beyond 2^32 exact', async () => {
    const handle = await open()
    const { db } = handle
    await sql`ALTER TABLE pets ALTER COLUMN id RESTART WITH 1099511627776`.execute(db)
    const repo = createPostgresPetRepository(handle)
    const pet = await run(repo.add(aPetData()))
    expect(pet.id).toBe(2 ** 40)
    expect(await run(repo.list(everything))).toEqual([pet])
  })

  it('throws, as a defect, on an id beyond 2^53 - 1 instead of returning a wrong number', async () => {
    const handle = await open()
    const { db } = handle
    await sql`INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
      VALUES (9007199254740992, 'Big', 1, 'available'), (9007199254740993, 'Bigger', 1, 'sold')`.execute(db)
    const repo = createPostgresPetRepository(handle)
    await expect(repo.findById(9007199254740992 as PetId)()).rejects.toThrow(
      /pets\.id holds "9007199254740992"/,
    )
    await expect(repo.list(everything)()).rejects.toThrow(/isSafeInteger/)
    await expect(repo.list({ ...everything, status: 'sold' })()).rejects.toThrow(/"9007199254740993"/)
  })

  it('rethrows an error that is not about reaching the store: a bug must not become a 503', async () => {
    const repo = createPostgresPetRepository(await open())
    await expect(repo.add(aPetData({ name: '' as PetName }))()).rejects.toMatchObject({ code: '23514' })
  })

  it('runs each migration once, also when three instances start together on an empty database', async () => {
    const empty = await open({ empty: true })
    const instances = [1, 2, 3].map(() =>
      createPostgresDatabase({ connectionString: empty.url, poolSize: 1, ...patient }),
    )
    track(...instances)
    const ran = await Promise.all(instances.map((instance) => migrateToLatest(instance)))
    expect(ran.flat().sort()).toEqual(Object.keys(migrations).sort())
    expect(await migrateToLatest(empty)).toEqual([])
    const repo = createPostgresPetRepository(empty)
    const pet = await run(repo.add(aPetData()))
    expect(await run(repo.list(everything))).toEqual([pet])
  })

  it('names the migrations a database has not run: every one when empty, none when migrated, one dropped', async () => {
    const empty = await open({ empty: true })
    const known = Object.keys(migrations)
    expect(await pendingMigrations(empty.db)).toEqual(known)
    await migrateToLatest(empty)
    expect(await pendingMigrations(empty.db)).toEqual([])
    await sql`DELETE FROM kysely_migration WHERE name = ${known.at(-1)!}`.execute(empty.db)
    expect(await pendingMigrations(empty.db)).toEqual([known.at(-1)])
  })

  it('says up to date with one read of the migrations (after the encoding) when every migration ran, and still refuses a migration it does not know', async () => {
    const fresh = await open()
    const statements: Array<string> = []
    const counted = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: fresh.pool }),
      log: (event) => void statements.push(event.query.sql),
    })
    expect(await migrateToLatest(counted)).toEqual([])
    expect(statements).toHaveLength(2)
    expect(statements[0]).toMatch(/server_encoding/)
    expect(statements[1]).toBe('SELECT name FROM kysely_migration')
    // A database a newer version migrated: the whole way, whose check names what is wrong.
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('2999-01-01-0001-from-the-future', now()::text)`.execute(
      fresh.db,
    )
    await expect(migrateToLatest(fresh)).rejects.toThrow(/2999-01-01-0001-from-the-future|corrupted/)
  })

  it('answers StoreUnavailable, not a throw, when the database cannot be reached', async () => {
    const nowhere = createPostgresDatabase({
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      connectionTimeoutMs: 300,
    })
    track(nowhere)
    const repo = createPostgresPetRepository(nowhere)
    expect(await runLeft(repo.add(aPetData()))).toEqual(unavailable)
    expect(await runLeft(repo.findById(1 as PetId))).toEqual(unavailable)
    expect(await runLeft(repo.list(everything))).toEqual(unavailable)
  })

  it('answers StoreUnavailable when a statement times out, and serves the next one', async () => {
    const handle = await open({ statementTimeoutMs: 200 })
    const { db } = handle
    await sql`CREATE FUNCTION slowly() RETURNS trigger LANGUAGE plpgsql
      AS 'BEGIN PERFORM pg_sleep(2); RETURN NEW; END'`.execute(db)
    await sql`CREATE TRIGGER slowly BEFORE INSERT ON pets FOR EACH ROW EXECUTE FUNCTION slowly()`.execute(db)
    const repo = createPostgresPetRepository(handle)
    expect(await runLeft(repo.add(aPetData()))).toMatchObject({
      _tag: 'StoreUnavailable',
      cause: { code: '57014' },
    })
    await sql`DROP TRIGGER slowly ON pets`.execute(db)
    const pet = await run(repo.add(aPetData()))
    expect(await run(repo.list(everything))).toEqual([pet])
  })

  it('reports an idle connection whose backend is terminated once, without the pg client it carried', async () => {
    const errors: Array<Error> = []
    const handle = await open({ onError: (error) => void errors.push(error) })
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(handle.db)
    await withAdminClient(handle.url, (client) =>
      client.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]),
    )
    await pollUntil('the pool hears of the broken connection', () => errors.length > 0)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(errors).toHaveLength(1)
    expect(errors[0]).not.toHaveProperty('client')
    expect(errors[0]!.message).toMatch(/terminat/)
  })

  it('answers StoreUnavailable when its backend is terminated, and the pool recovers', async () => {
    const handle = await open({ statementTimeoutMs: 20_000 })
    const { db, pool } = handle
    const repo = createPostgresPetRepository(handle)
    const pet = await run(repo.add(aPetData()))
    const terminate = async (where: string) =>
      (
        await sql
          .raw(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND ${where}`,
          )
          .execute(db)
      ).rows.length
    const sleeping = tryStore(() => sql`SELECT pg_sleep(10)`.execute(db))()
    await pollUntil(
      'the sleeping backend is terminated',
      async () => (await terminate("query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()")) > 0,
    )
    expect(await sleeping).toEqual(E.left(unavailable))
    // A client whose backend went away leaves the pool once pg reads the end of its socket; a
    // query that picks it up before that gets StoreUnavailable too, never a crash.
    const answered = await repo.list(everything)()
    expect([E.right([pet]), E.left(unavailable)]).toContainEqual(answered)
    await pollUntil('the next listing is served', async () => E.isRight(await repo.list(everything)()))
    // Every backend of the database, the asking one included: the pool must open new ones.
    await tryStore(() => terminate('true'))()
    // pg_terminate_backend only signals: each backend ends, and its socket closes, when the server gets to
    // it (CI, with every package's tests at once on two cores, once took more than 5 s).
    await pollUntil('the pool lets go of its terminated connections', () => pool.totalCount === 0, 15_000)
    expect(await run(repo.findById(pet.id))).toEqual(O.some(pet))
  })
})
