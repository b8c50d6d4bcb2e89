import type { PageCursor } from '@pets/domain'
import { aCreation, aPetData, run, runLeft } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  CLEANUP_LOCK,
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  createPostgresStoreHealth,
  PET_INSERT_LOCK,
  type Database,
  fromKysely,
} from '../src/index.js'
import type { FreshDatabase } from '../src/testing/index.js'
import { patient } from './support/patient.js'
import { waitForLockWait } from './support/creation-batches.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const HOUR = 3_600_000
const everything = { limit: 1000, after: 0 as PageCursor }
// What the use case asks at the instant of the request: the window is 24 hours.
const now = (overrides: Parameters<typeof aCreation>[0] = {}) => {
  const at = new Date()
  return aCreation({ at, expiredBefore: new Date(at.getTime() - 24 * HOUR), ...overrides })
}

/** Holds a transaction open on a connection of its own until `release`. */
const holdLock = async (fresh: FreshDatabase, lock: string) => {
  const client: pg.PoolClient = await fresh.pool.connect()
  await client.query('BEGIN')
  await client.query(`SELECT ${lock}`)
  return async () => {
    await client.query('ROLLBACK')
    client.release()
  }
}
/** Every pet of the database, by id. */
const petsOf = (fresh: FreshDatabase) => run(createPostgresPetRepository(fresh).list(everything))
const keyLock = (key: string, owner: string) =>
  `pg_advisory_xact_lock(hashtextextended('pets.idempotency' || chr(10) || '${key}' || chr(10) || '${owner}', 0))`

describe('create_pet_once: an idempotent addition in one statement', () => {
  const { open } = useFreshDatabases()

  it('adds, replays and refuses with one statement each, after its intent', async () => {
    const fresh = await open()
    const queries: Array<string> = []
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: fresh.pool }),
      log: (event) => void queries.push(event.query.sql),
    })
    const creations = createPostgresIdempotentPetCreations(fromKysely(counted))
    const created = await run(creations.addOnce(now()))
    expect(await run(creations.addOnce(now()))).toEqual(created)
    expect(await runLeft(creations.addOnce(now({ fingerprint: 'another body' })))).toEqual({
      _tag: 'IdempotencyKeyReused',
    })
    expect(queries).toHaveLength(6)
    expect(await petsOf(fresh)).toEqual([created])
    expect(queries.filter((_, i) => i % 2 === 0).every((q) => /INSERT INTO pet_insert_intents/.test(q))).toBe(
      true,
    )
    expect(queries.filter((_, i) => i % 2 === 1).every((q) => /create_pets_once_claimed/.test(q))).toBe(true)
  })

  it('dates records by the database clock: the request instant is ignored, its window kept', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh)
    // A process whose clock is a year off: the record is dated by PostgreSQL all the same.
    const skewed = new Date(Date.now() - 365 * 24 * HOUR)
    const first = await run(
      creations.addOnce(now({ at: skewed, expiredBefore: new Date(skewed.getTime() - 24 * HOUR) })),
    )
    const { rows } = await sql<{ age: number }>`
      SELECT extract(epoch FROM now() - created_at) AS age FROM idempotency_records`.execute(fresh.db)
    expect(Math.abs(Number(rows[0]!.age))).toBeLessThan(60)
    // 23 hours old by the database's clock: replayed, whatever the process thinks the time is.
    await sql`UPDATE idempotency_records SET created_at = now() - interval '23 hours'`.execute(fresh.db)
    const farAhead = new Date(Date.now() + 365 * 24 * HOUR)
    expect(
      await run(
        creations.addOnce(now({ at: farAhead, expiredBefore: new Date(farAhead.getTime() - 24 * HOUR) })),
      ),
    ).toEqual(first)
    expect(await petsOf(fresh)).toEqual([first])
    // 25 hours old: expired, so the key adds a new pet, and its record is replaced.
    await sql`UPDATE idempotency_records SET created_at = now() - interval '25 hours'`.execute(fresh.db)
    const second = await run(creations.addOnce(now({ fingerprint: 'another body' })))
    expect(second.id).toBeGreaterThan(first.id)
    expect(await run(creations.addOnce(now({ fingerprint: 'another body' })))).toEqual(second)
    expect(await petsOf(fresh)).toEqual([first, second])
    const records = await sql<{ n: string }>`SELECT count(*) AS n FROM idempotency_records`.execute(fresh.db)
    expect(records.rows[0]!.n).toBe('1')
  })

  it('answers IdempotencyKeyInUse at once while another connection performs the same key', async () => {
    const fresh = await open()
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 2, ...patient })
    const creations = [fresh, other].map((d) => createPostgresIdempotentPetCreations(d))
    try {
      // The first call waits inside the server, holding its key's lock, for the ordering lock
      // another transaction holds; the second call, on another pool, is told at once.
      const release = await holdLock(fresh, `pg_advisory_xact_lock(${PET_INSERT_LOCK})`)
      const first = creations[0]!.addOnce(now())()
      await waitForLockWait(fresh)
      const startedAt = performance.now()
      expect(await runLeft(creations[1]!.addOnce(now()))).toEqual({ _tag: 'IdempotencyKeyInUse' })
      // At once: a wait for the key's lock would last the pool's 10 s lock timeout.
      expect(performance.now() - startedAt).toBeLessThan(3000)
      await release()
      const created = await run(() => first)
      expect(await run(creations[1]!.addOnce(now()))).toEqual(created)
      expect(await petsOf(fresh)).toEqual([created])
    } finally {
      await other.close()
    }
  })

  it('replays a finished key while another instance holds its lock (replaying it too), on both paths', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh)
    const created = await run(creations.addOnce(now()))
    const release = await holdLock(fresh, keyLock('retry-me', 'key-1'))
    try {
      // Through the intent (create_pets_once_claimed) and inside a caller's transaction (create_pets_once).
      expect(await run(creations.addOnce(now()))).toEqual(created)
      const inTransaction = await fresh.db
        .transaction()
        .execute((trx) =>
          createPostgresIdempotentPetCreations(fromKysely(trx)).addOnce(
            now({ fingerprint: 'another body' }),
          )(),
        )
      expect(inTransaction).toEqual(E.left({ _tag: 'IdempotencyKeyReused' }))
    } finally {
      await release()
    }
    expect(await petsOf(fresh)).toEqual([created])
  })

  it('answers IdempotencyKeyInUse, not a wait, while a transaction holds the key', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh)
    const release = await holdLock(fresh, keyLock('retry-me', 'key-1'))
    expect(await runLeft(creations.addOnce(now()))).toEqual({ _tag: 'IdempotencyKeyInUse' })
    await release()
    expect(await petsOf(fresh)).toEqual([])
    const created = await run(creations.addOnce(now()))
    expect(await petsOf(fresh)).toEqual([created])
  })

  it('ends a wait for the id-ordering lock after lock_timeout, also where the session has none', async () => {
    const fresh = await open()
    // As through a transaction pooler that dropped the session's settings: only what the
    // statement sets itself bounds the wait.
    const pooled = createPostgresDatabase({
      connectionString: fresh.url,
      sendSessionSettings: false,
      statementTimeoutMs: 0,
    })
    const options = { lockTimeoutMs: 200 }
    const pets = createPostgresPetRepository(pooled, options)
    const creations = createPostgresIdempotentPetCreations(pooled, options)
    const release = await holdLock(fresh, `pg_advisory_xact_lock(${PET_INSERT_LOCK})`)
    try {
      for (const write of [pets.add(aPetData()), creations.addOnce(now())]) {
        const startedAt = performance.now()
        expect(await runLeft(write)).toMatchObject({ _tag: 'StoreUnavailable', cause: { code: '55P03' } })
        // The 200 ms of the statement's own lock_timeout, not the endless wait of the session.
        expect(performance.now() - startedAt).toBeLessThan(5000)
      }
      const { rows } = await sql<{
        lock_timeout: string
      }>`SELECT current_setting('lock_timeout') AS lock_timeout`.execute(pooled.db)
      expect(rows[0]!.lock_timeout).toBe('0')
    } finally {
      await release()
      await pooled.close()
    }
    expect(await run(createPostgresPetRepository(fresh).add(aPetData()))).toMatchObject({ name: 'Rex' })
  })

  it('on a read-only database: refuses writes as StoreUnavailable 25006, still replays, and /readyz says so', async () => {
    const fresh = await open()
    const writable = createPostgresIdempotentPetCreations(fresh)
    const first = await run(writable.addOnce(now()))
    await sql.raw(`ALTER DATABASE "${fresh.name}" SET default_transaction_read_only = on`).execute(fresh.db)
    const readOnly = createPostgresDatabase({ connectionString: fresh.url, ...patient })
    try {
      const creations = createPostgresIdempotentPetCreations(readOnly)
      const pets = createPostgresPetRepository(readOnly)
      expect(await runLeft(pets.add(aPetData()))).toMatchObject({ cause: { code: '25006' } })
      expect(await runLeft(creations.addOnce(now({ key: 'new' })))).toMatchObject({
        cause: { code: '25006' },
      })
      expect(await run(creations.addOnce(now()))).toEqual(first)
      expect(await runLeft(creations.addOnce(now({ fingerprint: 'another' })))).toEqual({
        _tag: 'IdempotencyKeyReused',
      })
      expect(await run(pets.list(everything))).toEqual([first])
      const changes: Array<[boolean, string]> = []
      const health = createPostgresStoreHealth(readOnly.db, {
        onWritableChange: (writable, reason) => void changes.push([writable, reason]),
      })
      const checked = await health.check()()
      expect(checked).toMatchObject({ _tag: 'Left', left: { cause: { name: 'DatabaseRefusesWritesError' } } })
      expect(String((checked as { left: { cause: Error } }).left.cause.message)).toMatch(
        /refuses writes.*default_transaction_read_only/,
      )
      await health.check()()
      expect(changes).toEqual([[false, expect.stringMatching(/refuses writes/)]])
    } finally {
      await readOnly.close()
    }
  })

  it('removes expired records in bounded batches, by the database clock', async () => {
    const fresh = await open()
    const statements: Array<string> = []
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: fresh.pool }),
      log: (event) => void statements.push(event.query.sql),
    })
    const pet = await run(createPostgresPetRepository(fresh).add(aPetData()))
    await sql`INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
      SELECT 'k', 'old ' || n, 'f', ${String(pet.id)}::bigint, now() - interval '30 hours'
      FROM generate_series(1, 250) AS n
      UNION ALL
      SELECT 'k', 'recent ' || n, 'f', ${String(pet.id)}::bigint, now() - interval '23 hours'
      FROM generate_series(1, 5) AS n`.execute(fresh.db)
    const creations = createPostgresIdempotentPetCreations(fromKysely(counted), { cleanupBatchSize: 100 })
    // `before` is the process's idea of 24 hours ago; the database's clock decides instead.
    expect(await run(creations.removeExpired(new Date(0)))).toBe(250)
    expect(statements).toHaveLength(3)
    const left = await sql<{ key: string }>`SELECT idempotency_key AS key FROM idempotency_records`.execute(
      fresh.db,
    )
    expect(left.rows.map((r) => r.key).sort()).toEqual([
      'recent 1',
      'recent 2',
      'recent 3',
      'recent 4',
      'recent 5',
    ])
  })

  it('removes nothing, without waiting, while another instance is removing', async () => {
    const fresh = await open()
    const pet = await run(createPostgresPetRepository(fresh).add(aPetData()))
    await sql`INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
      VALUES ('k', 'old', 'f', ${String(pet.id)}::bigint, now() - interval '30 hours')`.execute(fresh.db)
    const creations = createPostgresIdempotentPetCreations(fresh)
    const release = await holdLock(fresh, `pg_advisory_xact_lock(${CLEANUP_LOCK})`)
    const startedAt = performance.now()
    expect(await run(creations.removeExpired(new Date()))).toBe(0)
    // Without waiting: a wait for the cleanup lock would last the pool's 10 s lock timeout.
    expect(performance.now() - startedAt).toBeLessThan(3000)
    await release()
    expect(await run(creations.removeExpired(new Date()))).toBe(1)
  })
})
