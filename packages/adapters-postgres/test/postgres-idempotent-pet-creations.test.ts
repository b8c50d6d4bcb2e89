import type { PageCursor } from '@pets/domain'
import {
  aCreation,
  describeIdempotentPetCreationsContract,
  pollUntil,
  run,
  runLeft,
} from '@pets/domain/testing'
import { sql } from 'kysely'
import { describe, expect, inject, it } from 'vitest'
import {
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
} from '../src/index.js'
import { openFreshDatabase, type FreshDatabase } from '../src/testing/index.js'
import { patient } from './support/patient.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const postgres = inject('postgres')

describeIdempotentPetCreationsContract('postgres', async () => {
  const fresh = await openFreshDatabase(postgres)
  // The contract fixes instants hours apart: the records follow the request's clock here. The
  // database's clock, the default, is tested below.
  return {
    creations: createPostgresIdempotentPetCreations(fresh, { clock: 'request' }),
    pets: createPostgresPetRepository(fresh),
    close: fresh.close,
  }
})

describe('postgres idempotent pet creations', () => {
  const { open, track } = useFreshDatabases()
  const countRows = async (fresh: FreshDatabase, table: 'pets' | 'idempotency_records') =>
    Number(
      (await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(fresh.db)).rows[0]!.n,
    )

  it('refuses a repeat that came while the first was in its transaction, then replays it', async () => {
    const fresh = await open({ statementTimeoutMs: 20_000 })
    const creations = createPostgresIdempotentPetCreations(fresh)
    await sql`CREATE FUNCTION slowly() RETURNS trigger LANGUAGE plpgsql
      AS 'BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END'`.execute(fresh.db)
    await sql`CREATE TRIGGER slowly BEFORE INSERT ON pets FOR EACH ROW EXECUTE FUNCTION slowly()`.execute(
      fresh.db,
    )
    const first = creations.addOnce(aCreation())()
    await pollUntil(
      'the first is inside its transaction',
      async () =>
        (
          await sql`SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'PgSleep'
            AND pid <> pg_backend_pid()`.execute(fresh.db)
        ).rows.length > 0,
    )
    // Answered once the first has added its pet: it was still running when the repeat came.
    expect(await runLeft(creations.addOnce(aCreation()))).toEqual({ _tag: 'IdempotencyKeyInUse' })
    const created = await run(() => first)
    expect(await run(creations.addOnce(aCreation()))).toEqual(created)
    expect(await countRows(fresh, 'pets')).toBe(1)
  })

  it('adds one pet for 50 concurrent requests with one key through two pools, as two processes would', async () => {
    const fresh = await open({ poolSize: 10 })
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 10, ...patient })
    track(other)
    const pools = [createPostgresIdempotentPetCreations(fresh), createPostgresIdempotentPetCreations(other)]
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => pools[i % 2]!.addOnce(aCreation())()),
    )
    expect(await countRows(fresh, 'pets')).toBe(1)
    expect(await countRows(fresh, 'idempotency_records')).toBe(1)
    const ids = new Set(results.flatMap((r) => (r._tag === 'Right' ? [r.right.id] : [])))
    expect(ids.size).toBe(1)
    for (const r of results) if (r._tag === 'Left') expect(r.left).toEqual({ _tag: 'IdempotencyKeyInUse' })
  })

  it('keeps neither pet nor record when the transaction fails, so a retry runs again', async () => {
    const fresh = await open({ statementTimeoutMs: 300 })
    const creations = createPostgresIdempotentPetCreations(fresh)
    // The record's insert fails after the pet's: both must be rolled back.
    await sql`CREATE FUNCTION slowly() RETURNS trigger LANGUAGE plpgsql
      AS 'BEGIN PERFORM pg_sleep(2); RETURN NEW; END'`.execute(fresh.db)
    await sql`CREATE TRIGGER slowly BEFORE INSERT ON idempotency_records
      FOR EACH ROW EXECUTE FUNCTION slowly()`.execute(fresh.db)
    expect(await runLeft(creations.addOnce(aCreation()))).toMatchObject({ _tag: 'StoreUnavailable' })
    expect(await countRows(fresh, 'pets')).toBe(0)
    expect(await countRows(fresh, 'idempotency_records')).toBe(0)
    await sql`DROP TRIGGER slowly ON idempotency_records`.execute(fresh.db)
    const created = await run(creations.addOnce(aCreation()))
    const pets = createPostgresPetRepository(fresh)
    expect(await run(pets.list({ limit: 10, after: 0 as PageCursor }))).toEqual([created])
  })

  it('removes expired records with the index on created_at', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh, { clock: 'request' })
    await run(creations.addOnce(aCreation({ at: new Date('2026-11-20T00:00:00Z') })))
    await run(creations.addOnce(aCreation({ key: 'k2' })))
    expect(await run(creations.removeExpired(new Date('2026-11-21T00:00:00Z')))).toBe(1)
    const plan = await fresh.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx)
      const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN DELETE FROM idempotency_records
        WHERE created_at < now()`.execute(trx)
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    })
    expect(plan).toMatch(/idempotency_records_created_at_idx/)
  })

  it('answers StoreUnavailable, not a throw, when the database cannot be reached', async () => {
    const nowhere = createPostgresDatabase({
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      connectionTimeoutMs: 300,
    })
    track(nowhere)
    const creations = createPostgresIdempotentPetCreations(nowhere)
    expect(await runLeft(creations.addOnce(aCreation()))).toMatchObject({ _tag: 'StoreUnavailable' })
    expect(await runLeft(creations.removeExpired(new Date()))).toMatchObject({ _tag: 'StoreUnavailable' })
  })
})
