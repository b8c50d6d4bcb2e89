import { randomBytes } from 'node:crypto'
import {
  createPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from '../create-postgres-database.js'
import type { TestPgBouncer } from './pgbouncer.js'
import type { TestDatabase } from './provide-test-database.js'
import { databaseUrl, dropDatabases, quoteIdent, withAdminClient } from './with-admin-client.js'

const TEST_TIMEOUT_MS = 10_000

/**
 * Pool options for a fresh database; `empty` clones template0 instead, leaving it unmigrated. The
 * connection, statement and lock timeouts are 10 s unless given.
 */
export type FreshDatabaseOptions = Omit<PostgresDatabaseOptions, 'connectionString'> & {
  readonly empty?: boolean
  /** The pool connects through this PgBouncer (startTestPgBouncer) instead of directly. */
  readonly through?: TestPgBouncer
}

/**
 * A database of its own for one test: its URL (on PostgreSQL itself) and name, a pool on it (on
 * `poolUrl`: through the PgBouncer when given one, else `url`), and a `close` that drops it.
 */
export type FreshDatabase = PostgresDatabase & {
  readonly url: string
  readonly poolUrl: string
  readonly name: string
}

/**
 * Clones the migrated template into a new database with a unique name, so each test (or file)
 * has its own and tests run in parallel. `close` ends the pool and drops the database.
 */
export const openFreshDatabase = async (
  admin: TestDatabase,
  options: FreshDatabaseOptions = {},
): Promise<FreshDatabase> => {
  const { empty = false, through, ...poolOptions } = options
  // Named after the template, so the teardown finds what a crashed test left behind.
  const name = `${admin.templateName}_${randomBytes(4).toString('hex')}`
  const template = empty ? 'template0' : admin.templateName
  await withAdminClient(admin.url, (client) =>
    client.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`),
  )
  const url = databaseUrl(admin.url, name)
  const poolUrl = through === undefined ? url : through.through(url)
  // Generous unless given: a test on a machine busy with other tests must not time out unless it
  // is about time (the service's own defaults answer 503 within about 2 s).
  const database = createPostgresDatabase({
    connectionTimeoutMs: TEST_TIMEOUT_MS,
    statementTimeoutMs: TEST_TIMEOUT_MS,
    lockTimeoutMs: TEST_TIMEOUT_MS,
    ...poolOptions,
    connectionString: poolUrl,
  })
  let closing: Promise<void> | undefined
  const close = async () => {
    try {
      await database.close()
    } finally {
      await dropDatabases(admin.url, name)
    }
  }
  return { ...database, url, poolUrl, name, close: () => (closing ??= close()) }
}
