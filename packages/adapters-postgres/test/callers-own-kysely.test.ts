import type { ApiKeyName, PageCursor, PetName } from '@pets/domain'
import { aCreation, aPetData, pollUntil, run } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  fromKysely,
  type Database,
} from '../src/index.js'
import { PET_INSERT_LOCK } from '../src/stores/advisory-locks.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// An embedding service's schema: ours, and a table of its own.
type Orders = { orders: { id: number; pet_id: string } }

describe("a caller's own kysely instance, with tables of its own", () => {
  const { open, track } = useFreshDatabases()

  it('is taken as it is, and so is its transaction: the pet and the caller’s row commit or roll back together', async () => {
    const fresh = await open()
    await sql`CREATE TABLE orders (id serial PRIMARY KEY, pet_id bigint NOT NULL)`.execute(fresh.db)
    const db = new Kysely<Database & Orders>({ dialect: new PostgresDialect({ pool: fresh.pool }) })
    const addBoth = (name: string, end: 'commit' | 'rollback') =>
      db
        .transaction()
        .execute(async (trx) => {
          const pet = await run(
            createPostgresPetRepository(fromKysely(trx)).add(aPetData({ name: name as PetName })),
          )
          await trx
            .insertInto('orders')
            .values({ id: pet.id, pet_id: String(pet.id) })
            .execute()
          if (end === 'rollback') throw new Error('the caller changed its mind')
          return pet
        })
        .catch(() => undefined)
    expect(await addBoth('kept', 'commit')).toMatchObject({ name: 'kept' })
    expect(await addBoth('dropped', 'rollback')).toBeUndefined()
    const pets = await run(
      createPostgresPetRepository(fromKysely(db)).list({ limit: 10, after: 0 as PageCursor }),
    )
    expect(pets.map((p) => p.name)).toEqual(['kept'])
    expect(await db.selectFrom('orders').select('pet_id').execute()).toEqual([
      { pet_id: String(pets[0]!.id) },
    ])
    // The key store and the usage log take it too.
    const issued = await run(createPostgresApiKeyStore(db).issue('embedded' as ApiKeyName))
    const usage = createPostgresApiKeyUsageLog(db)
    const calls = { keyId: issued.record.id, operation: 'listPets', calls: 1, lastCalledAt: new Date() }
    await run(usage.add([calls]))
    expect(await run(usage.list())).toEqual([calls])
  })

  it('leaves the lock timeout of the caller’s transaction as it was: our inserts set theirs for themselves', async () => {
    const fresh = await open()
    const lockTimeoutAfter = (add: (trx: Kysely<Database>) => Promise<unknown>) =>
      fresh.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL lock_timeout = '30s'`.execute(trx)
        await add(trx)
        const { rows } = await sql<{ lt: string }>`SELECT current_setting('lock_timeout') AS lt`.execute(trx)
        return rows[0]?.lt
      })
    expect(
      await lockTimeoutAfter((trx) => run(createPostgresPetRepository(fromKysely(trx)).add(aPetData()))),
    ).toBe('30s')
    const once = aCreation({ key: 'in-a-transaction' })
    expect(
      await lockTimeoutAfter((trx) =>
        run(createPostgresIdempotentPetCreations(fromKysely(trx)).addOnce(once)),
      ),
    ).toBe('30s')
  })

  it('answers a deadlock in the caller’s transaction StoreUnavailable: nothing runs again in an aborted one', async () => {
    const fresh = await open()
    await sql`CREATE TABLE orders (id serial PRIMARY KEY, pet_id bigint NOT NULL)`.execute(fresh.db)
    const other = new pg.Client({ connectionString: fresh.url })
    // The database is dropped after the test, ending this session too: no uncaught 57P01 then.
    other.on('error', () => {})
    await other.connect()
    track({ close: () => other.end() })
    const waitingFor = async (event: string) =>
      (
        await fresh.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = $1`,
          [event],
        )
      ).rows.length > 0
    let otherWaits!: Promise<unknown>
    // The caller's transaction locks its own table; another session takes the ordering lock, then waits for
    // that table; the caller's insert, which takes the ordering lock alone, closes the circle, and its
    // deadlock_timeout, the shorter, makes it the one PostgreSQL ends.
    const answer = fresh.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL deadlock_timeout = '100ms'`.execute(trx)
      await sql`LOCK TABLE orders IN ACCESS EXCLUSIVE MODE`.execute(trx)
      await other.query(
        `BEGIN; SET LOCAL deadlock_timeout = '10s'; SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK})`,
      )
      otherWaits = other.query('LOCK TABLE orders IN ACCESS EXCLUSIVE MODE')
      await pollUntil('the other session waits for the caller’s table', () => waitingFor('relation'))
      return createPostgresPetRepository(fromKysely(trx)).add(aPetData())()
    })
    expect(await answer).toMatchObject(
      E.left({ _tag: 'StoreUnavailable', details: { sqlstate: '40P01', retried: false } }),
    )
    await otherWaits
    await other.query('ROLLBACK')
    expect((await fresh.pool.query('SELECT count(*)::int AS n FROM pets')).rows).toEqual([{ n: 0 }])
  })
})
