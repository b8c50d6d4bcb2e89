import type { ApiKeyName } from '@pets/domain'
import { pollUntil, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createPostgresApiKeyStore, type PostgresApiKeyStore } from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// A change heard of makes the keys in memory stale until a reload begun after it has ended: meanwhile every
// key is looked up in the database, so a key revoked elsewhere is refused at once, not after the reload.
describe('the API keys in memory, between a change heard of and its reload', () => {
  const { open, session } = useFreshDatabases()
  const stores: Array<PostgresApiKeyStore> = []
  // Registered after useFreshDatabases' hook, so it runs before it: stores close before their pools.
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()))
  })

  it('are not served from while the reload waits, and are again once it ends', async () => {
    const fresh = await open()
    const store = createPostgresApiKeyStore(fresh.db, { listen: { connectionString: fresh.url } })
    stores.push(store)
    await store.start()
    const { key, record } = await run(store.issue('revoked elsewhere' as ApiKeyName))
    // The issue's own NOTIFY sets off a reload too: the memory serves again once it ends.
    await pollUntil('the memory serves', () => store.servingFromMemory(), 5_000)

    // Another process revokes the key; a third session takes the table before that commits, so that the
    // reload the NOTIFY sets off queues behind it (the lock is granted in the order asked).
    const revoker = await session(fresh)
    const blocker = await session(fresh)
    await revoker.query('BEGIN')
    await revoker.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id])
    await blocker.query('BEGIN')
    const locked = blocker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE')
    await pollUntil('the lock is asked for', async () => (await waitingOnApiKeys(fresh)) >= 1, 5_000)
    await revoker.query('COMMIT')
    await locked
    await pollUntil('the reload waits for the table', async () => (await waitingOnApiKeys(fresh)) >= 1, 5_000)
    expect(store.servingFromMemory()).toBe(false)

    await blocker.query('COMMIT')
    await pollUntil('the reload ends', () => store.servingFromMemory(), 5_000)
    expect(O.isSome(await run(store.authenticate(key)))).toBe(false)
  })
})

// The statements of the database waiting for a lock on api_keys.
const waitingOnApiKeys = async (fresh: { readonly pool: { query: (text: string) => Promise<unknown> } }) => {
  const { rows } = (await fresh.pool.query(
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
      WHERE NOT l.granted AND c.relname = 'api_keys'`,
  )) as { rows: Array<{ n: number }> }
  return rows[0]!.n
}
