import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { DEFAULT_LOCK_TIMEOUT_MS } from './adapter-options.js'
import { guardPool } from './guarded-pool.js'
import type { Database } from './schema.js'

/** TCP keepalives, on both ends of every connection of the pool. */
export type KeepAliveOptions = {
  /** Idle time before the first probe; 5000 ms unless given (the server counts whole seconds). */
  readonly idleMs?: number
  /** Time between probes, on the server; 1000 ms unless given. */
  readonly intervalMs?: number
  /** Unanswered probes before the server drops the connection; 3 unless given. */
  readonly count?: number
}

/** How to reach PostgreSQL, and how long to wait for it. */
export type PostgresDatabaseOptions = {
  readonly connectionString: string
  /** Connections in the pool; 10 unless given. */
  readonly poolSize?: number
  /**
   * How long a call waits for a connection, from the pool or newly opened, before it fails;
   * 1000 ms unless given.
   */
  readonly connectionTimeoutMs?: number
  /**
   * How long one statement may run before the server cancels it (`statement_timeout`); the client
   * gives up 250 ms later, for a server that no longer answers, and destroys that connection.
   * 750 ms unless given, 0 for no limit.
   */
  readonly statementTimeoutMs?: number
  /**
   * How long a statement waits for a lock (`lock_timeout`), such as a write for the id-ordering
   * lock; set on the session, and again inside every write that takes that lock. 500 ms unless
   * given, 0 for no limit.
   */
  readonly lockTimeoutMs?: number
  /**
   * How long a session may sit in an open transaction waiting for its client before the server
   * ends it (`idle_in_transaction_session_timeout`); 2000 ms unless given, 0 for no limit.
   */
  readonly idleInTransactionTimeoutMs?: number
  readonly keepAlive?: KeepAliveOptions
  /**
   * Whether to send the server-side settings (the timeouts, TCP keepalives) in the `options`
   * startup parameter; true unless given. Through a pooler that refuses `options`, set it false and
   * give those settings to the role instead (README).
   */
  readonly sendSessionSettings?: boolean
  /** Shown in pg_stat_activity, so operators see who holds a connection. */
  readonly applicationName?: string
  /** Told about connections that broke while no query was using them; the pool replaces them. */
  readonly onError?: (error: Error) => void
}

/** A kysely handle on the schema, the pool beneath it, and a `close` that ends both. */
export type PostgresDatabase = {
  readonly db: Kysely<Database>
  readonly pool: pg.Pool
  /** The lock timeout the adapters repeat inside their writes (`lockTimeoutMs`). */
  readonly lockTimeoutMs: number
  /** Connections destroyed because they broke or were presumed dead. */
  readonly evictions: () => number
  /** Waits for running queries, then closes every connection. Calling it again does nothing more. */
  readonly close: () => Promise<void>
}

// If the server never answers (a dead network), the client gives up this long after the server
// would have cancelled the statement itself; the server's cancel, when it comes, is the cheaper
// outcome (the connection stays usable).
export const QUERY_TIMEOUT_MARGIN_MS = 250

// pg.types is global, and the host process may have changed how it reads int8. This pool reads
// int8 as the decimal string pg gives by default, whatever the global setting says.
const int8AsText = (): pg.TypeOverrides => {
  const types = new pg.TypeOverrides()
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => value)
  return types
}

/** The settings each session of the pool gets from the server, by name, as `SET` would take them. */
export const sessionSettings = (options: Omit<PostgresDatabaseOptions, 'connectionString'>) => {
  const keepAlive = keepAliveOf(options.keepAlive)
  return {
    statement_timeout: options.statementTimeoutMs ?? 750,
    lock_timeout: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 2000,
    tcp_keepalives_idle: Math.max(1, Math.ceil(keepAlive.idleMs / 1000)),
    tcp_keepalives_interval: Math.max(1, Math.ceil(keepAlive.intervalMs / 1000)),
    tcp_keepalives_count: keepAlive.count,
    // Data the server sent that stays unacknowledged this long ends the connection too.
    tcp_user_timeout: keepAlive.idleMs + keepAlive.intervalMs * keepAlive.count,
  }
}

const keepAliveOf = (options: KeepAliveOptions = {}) => ({
  idleMs: options.idleMs ?? 5000,
  intervalMs: options.intervalMs ?? 1000,
  count: options.count ?? 3,
})

// pg lets a connection string's own parameters win over the configuration, so `options` given in
// DATABASE_URL would replace ours: it is taken out and appended after ours (a later -c wins).
const withOptions = (connectionString: string, ours: string | undefined) => {
  let theirs: string | null = null
  let rest = connectionString
  try {
    const url = new URL(connectionString)
    theirs = url.searchParams.get('options')
    if (theirs !== null) {
      url.searchParams.delete('options')
      rest = url.toString()
    }
  } catch {
    // not a URL (a key=value string): pg reads it as it is
  }
  const options = [ours, theirs].filter((o) => o !== undefined && o !== null && o !== '').join(' ')
  return { connectionString: rest, ...(options === '' ? {} : { options }) }
}

// The lock timeout of each handle made here, so that the adapters repeat the pool's own inside
// their writes unless told otherwise.
const lockTimeouts = new WeakMap<object, number>()

/**
 * The lock timeout the adapters set inside their writes on `db`: the pool's `lockTimeoutMs` when
 * `db` was made by createPostgresDatabase, else DEFAULT_LOCK_TIMEOUT_MS.
 */
export const lockTimeoutOf = (db: object): number => lockTimeouts.get(db) ?? DEFAULT_LOCK_TIMEOUT_MS

/** Opens a connection pool to PostgreSQL and a kysely handle on it. Connects lazily, on the first query. */
export const createPostgresDatabase = (options: PostgresDatabaseOptions): PostgresDatabase => {
  const statementTimeoutMs = options.statementTimeoutMs ?? 750
  const queryTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : 0
  const settings = sessionSettings(options)
  const keepAlive = keepAliveOf(options.keepAlive)
  const onError = options.onError ?? (() => {})
  const ours =
    options.sendSessionSettings === false
      ? undefined
      : Object.entries(settings)
          .map(([name, value]) => `-c ${name}=${value}`)
          .join(' ')
  const pool = new pg.Pool({
    ...withOptions(options.connectionString, ours),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 1000,
    // No `statement_timeout` here: pg would send it as a startup parameter of its own, which a
    // transaction pooler refuses (it closes the connection); it travels in `options` instead.
    // pg's own query timeout is only a backstop for those who use `pool` directly: through `db`,
    // the guard below times queries out first, and destroys their connections.
    query_timeout: queryTimeoutMs > 0 ? queryTimeoutMs + 1000 : undefined,
    application_name: options.applicationName,
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAlive.idleMs,
    types: int8AsText(),
  })
  // Without these listeners, a backend terminated while its client sits idle in the pool, or just
  // after it was handed out, emits an 'error' nobody hears, and Node ends the process. The query
  // that runs into the broken connection fails on its own and becomes StoreUnavailable.
  pool.on('error', onError)
  pool.on('connect', (client) => client.on('error', onError))

  const guarded = guardPool(pool, { queryTimeoutMs })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guarded }) })
  lockTimeouts.set(db, settings.lock_timeout)
  let closing: Promise<void> | undefined
  return {
    db,
    pool,
    lockTimeoutMs: settings.lock_timeout,
    evictions: guarded.evictions,
    close: () => (closing ??= db.destroy()),
  }
}
