import type pg from 'pg'
import { afterEach, inject } from 'vitest'
import { openFreshDatabase, type FreshDatabase, type FreshDatabaseOptions } from '../../src/testing/index.js'

type Closable = { readonly close: () => Promise<void> }

/**
 * For the tests of a describe block: `open` clones a fresh migrated database, `track` adds
 * anything else to close (a second pool); all of it is closed, and the databases dropped, after
 * each test.
 */
export const useFreshDatabases = () => {
  const opened: Array<Closable> = []
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()))
  })
  return {
    open: async (options: FreshDatabaseOptions = {}): Promise<FreshDatabase> => {
      const fresh = await openFreshDatabase(inject('postgres'), options)
      opened.push(fresh)
      return fresh
    },
    track: (...closables: ReadonlyArray<Closable>) => void opened.push(...closables),
    /** A session of `database`'s pool of its own (another instance, say), ended after the test. */
    session: async (database: FreshDatabase): Promise<pg.PoolClient> => {
      const client = await database.pool.connect()
      opened.push({ close: async () => client.release(true) })
      return client
    },
  }
}
