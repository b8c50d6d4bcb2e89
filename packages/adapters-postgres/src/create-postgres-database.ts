import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.js'

/** How to reach PostgreSQL, and how long to wait for it. */
export type PostgresDatabaseOptions = {
  readonly connectionString: string
  /** Connections in the pool; 10 unless given. */
  readonly poolSize?: number
  /** How long to wait for a connection before the call fails; 2000 ms unless given. */
  readonly connectionTimeoutMs?: number
  /** How long one statement may run before the server cancels it; 5000 ms unless given, 0 for no limit. */
  readonly statementTimeoutMs?: number
  /** Shown in pg_stat_activity, so operators see who holds a connection. */
  readonly applicationName?: string
  /** Told about connections that broke while no query was using them; the pool replaces them. */
  readonly onError?: (error: Error) => void
}

/** A kysely handle on the schema, the pool beneath it, and a `close` that ends both. */
export type PostgresDatabase = {
  readonly db: Kysely<Database>
  readonly pool: pg.Pool
  /** Waits for running queries, then closes every connection. Calling it again does nothing more. */
  readonly close: () => Promise<void>
}

// If the server never answers (a dead network), the client gives up this long after the server
// would have cancelled the statement itself.
const QUERY_TIMEOUT_MARGIN_MS = 1000

// pg.types is global, and the host process may have changed how it reads int8. This pool reads
// int8 as the decimal string pg gives by default, whatever the global setting says.
const int8AsText = (): pg.TypeOverrides => {
  const types = new pg.TypeOverrides()
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => value)
  return types
}

/** Opens a connection pool to PostgreSQL and a kysely handle on it. Connects lazily, on the first query. */
export const createPostgresDatabase = (options: PostgresDatabaseOptions): PostgresDatabase => {
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000
  const onError = options.onError ?? (() => {})
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 2000,
    statement_timeout: statementTimeoutMs > 0 ? statementTimeoutMs : false,
    query_timeout: statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : undefined,
    application_name: options.applicationName,
    keepAlive: true,
    types: int8AsText(),
  })
  // Without these listeners, a backend terminated while its client sits idle in the pool, or just
  // after it was handed out, emits an 'error' nobody hears, and Node ends the process. The query
  // that runs into the broken connection fails on its own and becomes StoreUnavailable.
  pool.on('error', onError)
  pool.on('connect', (client) => client.on('error', onError))

  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  let closing: Promise<void> | undefined
  return { db, pool, close: () => (closing ??= db.destroy()) }
}
