import type { PageCursor, PetName } from '@pets/domain'
import { aPetData, run, runLeft } from '@pets/domain/testing'
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createPostgresIdempotentPetCreations, createPostgresPetRepository } from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const everything = { limit: 100, after: 0 as PageCursor }
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// An insert of another process, step by step, as pet-inserts.ts makes it: the intent committed
// first, then the pet in a transaction that clears the intent, left open until `commit`.
const insertByHand = async (pool: pg.Pool, name: string, lifetime: string) => {
  const client = await pool.connect()
  const [slot, intent] = [randomUUID(), randomUUID()]
  await client.query(
    `INSERT INTO pet_insert_intents (slot, intent, lowest_id, expires_at)
     SELECT $1, $2, coalesce(pg_sequence_last_value(pg_get_serial_sequence('pets', 'id')::regclass), 0) + 1,
       clock_timestamp() + $3::interval`,
    [slot, intent, lifetime],
  )
  return {
    insert: async () => {
      await client.query('BEGIN')
      await client.query(
        'UPDATE pet_insert_intents SET intent = NULL, lowest_id = NULL WHERE slot = $1 AND intent = $2',
        [slot, intent],
      )
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO pets (name, category_id, status) VALUES ($1, 1, 'available') RETURNING id`,
        [name],
      )
      return Number(rows[0]!.id)
    },
    commit: async () => {
      await client.query('COMMIT')
      client.release()
    },
    release: () => client.release(),
  }
}

describe('inserts that commit in parallel, and listings that never pass an insert under way', () => {
  const { open } = useFreshDatabases()

  it('lets a later insert commit at once, and holds a listing back until the earlier insert commits', async () => {
    const handle = await open()
    const { pool } = handle
    const repo = createPostgresPetRepository(handle)
    const first = await insertByHand(pool, 'first', '1 minute')
    const firstId = await first.insert()
    // No lock between inserts: the second commits while the first is still open, with a larger id.
    const second = await run(repo.add(aPetData({ name: 'second' as PetName })))
    expect(second.id).toBeGreaterThan(firstId)
    let listed = false
    const listing = run(repo.list(everything)).then((pets) => ((listed = true), pets))
    await pause(150)
    // Answering [second] now would let a walk pass over `first`, which appears only later.
    expect(listed).toBe(false)
    await first.commit()
    expect((await listing).map((p) => p.name)).toEqual(['first', 'second'])
  })

  it('uses one row per slot: the intents of a thousand inserts leave the table at its first page', async () => {
    const handle = await open()
    const { pool } = handle
    const repo = createPostgresPetRepository(handle)
    for (let i = 0; i < 10; i++)
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => run(repo.add(aPetData({ name: `p${i}.${j}` as PetName })))),
      )
    const { rows } = await pool.query<{ slots: string; pages: string }>(
      `SELECT count(*) AS slots, pg_relation_size('pet_insert_intents') / current_setting('block_size')::int AS pages
       FROM pet_insert_intents`,
    )
    expect(Number(rows[0]!.slots)).toBeLessThanOrEqual(2)
    expect(Number(rows[0]!.pages)).toBe(1)
  })

  it('answers a full page at once: the insert under way is beyond it', async () => {
    const handle = await open()
    const { pool } = handle
    const repo = createPostgresPetRepository(handle)
    const early = await run(repo.add(aPetData({ name: 'early' as PetName })))
    const late = await insertByHand(pool, 'late', '1 minute')
    await late.insert()
    await run(repo.add(aPetData({ name: 'after' as PetName })))
    // limit 1: the page is asked for one more pet than it shows, so 2 rows are wanted and one is there.
    expect((await run(repo.list({ limit: 1, after: 0 as PageCursor }))).map((p) => p.id)).toEqual([early.id])
    await late.commit()
  })

  it('forgets the intent of a writer that never inserted once it expires, and then lists every pet', async () => {
    const handle = await open({ statementTimeoutMs: 3000 })
    const { pool } = handle
    const repo = createPostgresPetRepository(handle)
    const stalled = await insertByHand(pool, 'never', '300 milliseconds')
    stalled.release()
    await run(repo.add(aPetData({ name: 'meanwhile' as PetName })))
    const startedAt = performance.now()
    expect((await run(repo.list(everything))).map((p) => p.name)).toEqual(['meanwhile'])
    expect(performance.now() - startedAt).toBeGreaterThan(100)
    const { rows } = await pool.query('SELECT slot FROM pet_insert_intents WHERE intent IS NOT NULL')
    expect(rows).toEqual([])
  })

  it('adds nothing when its intent expired before its insert began, and answers StoreUnavailable', async () => {
    const handle = await open({ statementTimeoutMs: 3000 })
    const { pool } = handle
    // Every intent is born expired: as if the process had stalled between registering and inserting.
    await pool.query(`CREATE FUNCTION expire_at_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.expires_at := clock_timestamp() - interval '1 second'; RETURN NEW; END $$`)
    await pool.query(`CREATE TRIGGER born_expired BEFORE INSERT OR UPDATE ON pet_insert_intents
      FOR EACH ROW EXECUTE FUNCTION expire_at_once()`)
    const repo = createPostgresPetRepository(handle)
    expect(await runLeft(repo.add(aPetData()))).toMatchObject({ _tag: 'StoreUnavailable' })
    expect((await pool.query('SELECT id FROM pets')).rows).toEqual([])
  })

  it('removes the slots of a process that ended, an hour unused, with the expired idempotency records', async () => {
    const handle = await open()
    const { pool } = handle
    await run(createPostgresPetRepository(handle).add(aPetData()))
    await pool.query(`INSERT INTO pet_insert_intents (slot, intent, lowest_id, expires_at)
      VALUES (gen_random_uuid(), NULL, NULL, now() - interval '2 hours')`)
    expect((await pool.query('SELECT slot FROM pet_insert_intents')).rows).toHaveLength(2)
    await run(createPostgresIdempotentPetCreations(handle).removeExpired(new Date()))
    // The live process's slot stays; the other is gone.
    expect((await pool.query('SELECT slot FROM pet_insert_intents')).rows).toHaveLength(1)
  })

  it('keeps intents in a logged table, which a hot standby can read (listings there read it too)', async () => {
    const { pool } = await open()
    const { rows } = await pool.query<{ persistence: string }>(
      `SELECT relpersistence AS persistence FROM pg_class WHERE relname = 'pet_insert_intents'`,
    )
    // 'u' (unlogged) would make every listing on a standby fail: "cannot access temporary or
    // unlogged relations during recovery".
    expect(rows).toEqual([{ persistence: 'p' }])
  })
})
