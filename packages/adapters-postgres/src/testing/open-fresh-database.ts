import { randomBytes } from 'node:crypto'
import {
  createPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from '../runner/index.js'
import type { TestPgBouncer } from './pgbouncer.js'
import type { TestDatabase } from './provide-test-database.js'
import { databaseUrl, dropDatabases, quoteIdent, withAdminClient } from './with-admin-client.js'

const TEST_TIMEOUT_MS = 10_000

/** Pool options for a fresh database (timeouts 10 s unless given); `empty` clones template0, unmigrated. */
export type FreshDatabaseOptions = Omit<PostgresDatabaseOptions, 'connectionString'> & {
  readonly empty?: boolean | undefined
  /** An empty database that keeps text in this encoding (`SQL_ASCII`, `LATIN1`), with the C locale. */
  readonly encoding?: string | undefined
  /** The pool connects through this PgBouncer (startTestPgBouncer) instead of directly. */
  readonly through?: TestPgBouncer | undefined
}

/** A test's own database: `url`, `name`, and a pool on `poolUrl` (through PgBouncer if given). */
export type FreshDatabase = PostgresDatabase & {
  readonly url: string
  readonly poolUrl: string
  readonly name: string
}

/** Clones the migrated template into a database of its own, so tests run in parallel; `close` drops it. */
export const openFreshDatabase = async (
  admin: TestDatabase,
  options: FreshDatabaseOptions = {},
): Promise<FreshDatabase> => {
  const { empty = false, encoding, through, ...poolOptions } = options
  // Named after the template, so the teardown finds what a crashed test left behind.
  const name = `${admin.templateName}_${randomBytes(4).toString('hex')}`
  const fromZero = empty || encoding !== undefined
  const template = fromZero ? 'template0' : admin.templateName
  // UTF8 unless asked (the server's default may not be: the service refuses another); any encoding goes with
  // the C locale. A literal, never attacker data (tests name it). A clone keeps its template's.
  const encoded = fromZero ? ` ENCODING '${encoding ?? 'UTF8'}' LC_COLLATE 'C' LC_CTYPE 'C'` : ''
  await withAdminClient(admin.url, (client) =>
    client.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}${encoded}`),
  )
  const url = databaseUrl(admin.url, name)
  const poolUrl = through === undefined ? url : through.through(url)
  // Generous unless given: a busy test machine must not time out (the service's defaults answer 503 in ~2 s).
  // A timeout given as undefined is 10 s too, as one left out is (a spread would pass the undefined on).
  const database = createPostgresDatabase({
    ...poolOptions,
    connectionTimeoutMs: poolOptions.connectionTimeoutMs ?? TEST_TIMEOUT_MS,
    statementTimeoutMs: poolOptions.statementTimeoutMs ?? TEST_TIMEOUT_MS,
    lockTimeoutMs: poolOptions.lockTimeoutMs ?? TEST_TIMEOUT_MS,
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
