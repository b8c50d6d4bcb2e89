import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { afterEach, inject } from 'vitest'

/** What openFreshDatabase takes: `empty` (unmigrated), an `encoding`, pool options. */
type FreshOptions = NonNullable<Parameters<typeof openFreshDatabase>[1]>

/** For a describe block: opens a fresh database on the test server, closed after the test that opened it. */
export const freshDatabases = (): ((options?: FreshOptions) => Promise<FreshDatabase>) => {
  const opened: Array<FreshDatabase> = []
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close()
  })
  return async (options = {}) => {
    const database = await openFreshDatabase(inject('postgres'), options)
    opened.push(database)
    return database
  }
}
