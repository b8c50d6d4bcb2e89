import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

// A rolling upgrade from a release before migration 0008: its listing is a plain keyset read that knows
// no insert intents (the query of d96ee8b's postgres-pet-repository.ts, below). A pet whose insert drew its
// id and commits after a later one is passed by such a walk for good. PET_INSERTS_ALONE=true makes this
// release insert as that one did, under the ordering lock alone: no id becomes visible before a smaller one.
const KEY = 'inserts-alone-e2e-key-7c1d0a93b5e2f4'
const LISTING_BEFORE_0008 =
  'select "id", "name", "category_id", "status" from "pets" where "id" > $1 order by "id" limit $2'
// Generous: the keyed insert waits for the test's transaction, and in the ordering lock's way the plain one
// waits for it in turn.
const PATIENT = {
  DATABASE_STATEMENT_TIMEOUT_MS: '20000',
  DATABASE_LOCK_TIMEOUT_MS: '20000',
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const post = async (svc: ChildService, name: string, key?: string) => {
  const res = await fetch(`${svc.url}/v1/pets`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': 'application/json',
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
    },
    body: JSON.stringify({ name, categoryId: 1 }),
  })
  return { status: res.status, id: ((await res.json()) as { id: number }).id }
}

const waitingForALock = async (database: FreshDatabase, query: string) => {
  for (let i = 0; i < 200; i++) {
    const { rowCount } = await database.pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${query}%`],
    )
    if (rowCount !== 0) return
    await pause(25)
  }
  throw new Error(`no statement with ${query} waited for a lock`)
}

/**
 * One process; an insert with an Idempotency-Key draws its id and then waits for a record of its key that a
 * transaction of the test holds uncommitted; a plain insert follows. What a listing of the release before 0008
 * sees then, and the two pets once the test's transaction rolled back.
 */
const twoInserts = async (env: Record<string, string>) => {
  const database = await openFreshDatabase(inject('postgres'))
  cleanups.push(database.close)
  const svc = await startTestService({
    mode: 'child',
    env: { API_KEYS: KEY, DATABASE_URL: database.url, MIGRATE_ON_START: 'false', ...PATIENT, ...env },
    timeoutMs: 30_000,
  })
  cleanups.push(() => svc.stop('SIGKILL'))
  const first = await post(svc, 'first', 'first-key')
  expect(first.status).toBe(201)
  const { rows } = await database.pool.query<{ owner: string }>(
    'SELECT api_key_id AS owner FROM idempotency_records',
  )
  const holder = await database.pool.connect()
  cleanups.push(async () => holder.release(true))
  // It stays idle in its transaction while the inserts queue: longer than the pool's 2 s allow on a busy machine.
  await holder.query('SET idle_in_transaction_session_timeout = 0')
  await holder.query('BEGIN')
  await holder.query(
    `INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
     VALUES ($1, 'held', 'the test''s', $2, now())`,
    [rows[0]!.owner, first.id],
  )
  const keyed = post(svc, 'keyed', 'held')
  await waitingForALock(database, 'create_pets_once')
  const plain = post(svc, 'plain')
  // Answered at once when it commits beside the keyed one; under the ordering lock it waits for it.
  const plainFirst = await Promise.race([plain.then(() => true), pause(3_000).then(() => false)])
  const listed = await database.pool.query<{ id: string }>(LISTING_BEFORE_0008, [first.id, 100])
  await holder.query('ROLLBACK')
  const [k, p] = await Promise.all([keyed, plain])
  expect([k.status, p.status]).toEqual([201, 201])
  expect(svc.output()).not.toContain('"status":500')
  return { keyed: k.id, plain: p.id, plainFirst, listed: listed.rows.map((r) => Number(r.id)) }
}

describe('beside a release before migration 0008, which lists without reading intents', () => {
  it(
    'by default a later pet is visible while an earlier one is still being added',
    { timeout: 40_000 },
    async () => {
      const seen = await twoInserts({})
      expect(seen.keyed).toBeLessThan(seen.plain)
      expect(seen.plainFirst).toBe(true)
      // That release's next page starts after `plain`: `keyed` is never listed by that walk.
      expect(seen.listed).toEqual([seen.plain])
    },
  )

  it('with PET_INSERTS_ALONE=true no pet is visible before an earlier one', { timeout: 40_000 }, async () => {
    const seen = await twoInserts({ PET_INSERTS_ALONE: 'true' })
    expect(seen.keyed).toBeLessThan(seen.plain)
    expect(seen.plainFirst).toBe(false)
    expect(seen.listed).toEqual([])
  })
})
