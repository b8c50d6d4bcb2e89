import { describeStorageContract } from '@pets/domain/testing'
import { afterAll, inject } from 'vitest'
import { createPostgresStorage, type PostgresStorageOptions } from '../src/index.js'
import { openFreshDatabase, startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'

// The storage module whole, as the service opens it: directly on PostgreSQL, and with its requests
// through PgBouncer in transaction mode (migrations and LISTEN on the direct URL).
const postgres = inject('postgres')
let bouncer: Promise<TestPgBouncer> | undefined
afterAll(async () => {
  await (await bouncer)?.stop()
})

const opener = (through: () => Promise<TestPgBouncer | undefined>) => async () => {
  const fresh = await openFreshDatabase(postgres)
  const pgbouncer = await through()
  const options: PostgresStorageOptions = {
    url: pgbouncer === undefined ? fresh.url : pgbouncer.through(fresh.url),
    directUrl: fresh.url,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 10_000,
    // The contract dates its idempotency records by instants of its own.
    idempotencyClock: 'request',
  }
  const storage = createPostgresStorage(options)
  let closing: Promise<void> | undefined
  return {
    ...storage,
    close: () =>
      (closing ??= (async () => {
        await storage.close()
        await fresh.close()
      })()),
  }
}

describeStorageContract(
  'postgres',
  opener(async () => undefined),
)
describeStorageContract(
  'postgres through PgBouncer',
  opener(() => (bouncer ??= startTestPgBouncer(postgres.url))),
)
