import type { Pet } from '@pets/domain'
import { aCreation, pollUntil } from '@pets/domain/testing'
import { PET_INSERT_LOCK } from '../../src/index.js'
import type { FreshDatabase } from '../../src/testing/index.js'

// Helpers of the tests of idempotent creations in batches: hold the ordering lock, so that what arrives
// meanwhile queues, and wait until a batch waits for it.

type Creation = Parameters<typeof aCreation>[0]

/** Holds the id-ordering lock in a transaction of its own until `release`. */
export const holdOrderingLock = async (fresh: FreshDatabase) => {
  const client = await fresh.pool.connect()
  await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK})`)
  return async () => {
    await client.query('ROLLBACK')
    client.release()
  }
}
export const waitForLockWait = (fresh: FreshDatabase) =>
  pollUntil('a batch waits for the ordering lock', async () => {
    const { rows } = await fresh.pool.query(`SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event = 'advisory' AND pid <> pg_backend_pid()`)
    return rows.length > 0
  })
export const countRows = async (fresh: FreshDatabase, table: 'pets' | 'idempotency_records') =>
  Number((await fresh.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
/** A creation of key `key`, its pet named as the key. */
export const named = (key: string, more: Creation = {}) =>
  aCreation({ key, pet: { name: key, categoryId: 1, status: 'available' } as Pet, ...more })
