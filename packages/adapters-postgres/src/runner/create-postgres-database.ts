import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { ConnectionFacts, PostgresHandle, StatementRunner } from './postgres-handle.js'
import { connectionConfig } from './connection-config.js'
import { guardPool } from './guarded-pool.js'
import { poolerAwareness, type PoolerMode } from './pooler.js'
import type { Database } from './schema.js'
import {
  keepAliveOf,
  perTransactionSettings,
  sessionSettings,
  startupOptions,
  type KeepAliveOptions,
} from './session-settings.js'

export { sessionSettings, type KeepAliveOptions } from './session-settings.js'
export type { ConnectionFacts } from './postgres-handle.js'
export type { PoolerMode } from './pooler.js'

/** How to reach PostgreSQL, and how long to wait for it. */
export type PostgresDatabaseOptions = {
  /** A postgres:// URI (several hosts, target_session_attrs: connection-config.ts) or pg's key=value string. */
  readonly connectionString: string
  /** The connection string's name in the host's configuration, for the message that refuses it. */
  readonly connectionStringName?: string | undefined
  /** Connections in the pool; 10 unless given. */
  readonly poolSize?: number | undefined
  /** How long a call waits for a connection before it fails; 1000 ms unless given. */
  readonly connectionTimeoutMs?: number | undefined
  /** `statement_timeout` (the client gives up 250 ms later); 750 ms unless given, 0 for no limit. */
  readonly statementTimeoutMs?: number | undefined
  /** `lock_timeout`, repeated inside the adapters' writes; 500 ms unless given, 0 for no limit. */
  readonly lockTimeoutMs?: number | undefined
  /** `idle_in_transaction_session_timeout`; 2000 ms unless given, 0 for no limit. */
  readonly idleInTransactionTimeoutMs?: number | undefined
  readonly keepAlive?: KeepAliveOptions | undefined
  /** Whether to send the timeouts and keepalives; true unless given (false: the role's settings apply). */
  readonly sendSessionSettings?: boolean | undefined
  /** Whether a transaction pooler is in between; `detect` unless given (PoolerMode). */
  readonly pooler?: PoolerMode | undefined
  /**
   * How long a connection lives at most, in seconds, so that a balancer's or DNS's new answer is followed
   * even when no error says so; 300 unless given, 0 for no limit. Closed at its next release past that.
   */
  readonly maxLifetimeSeconds?: number | undefined
  /** Shown in pg_stat_activity, so operators see who holds a connection. */
  readonly applicationName?: string | undefined
  /** Told about connections that broke while no query was using them; the pool replaces them. */
  readonly onError?: ((error: Error) => void) | undefined
}

/** A handle for the adapters (kysely and the guarded pool's runner), the pool beneath, and a `close`. */
export type PostgresDatabase = PostgresHandle & {
  readonly pool: pg.Pool
  /** The lock timeout the adapters repeat inside their writes (`lockTimeoutMs`). */
  readonly lockTimeoutMs: number
  /** Connections destroyed because they broke or were presumed dead. */
  readonly evictions: () => number
  /** Where connections go, for a log line: the hosts and rules of a postgres:// URI, never the password. */
  readonly target: string
  /** What the pool found out about the path to PostgreSQL; connects once if it has not yet. */
  readonly connectionFacts: () => Promise<ConnectionFacts>
  /** Waits for running queries, then closes every connection. Calling it again does nothing more. */
  readonly close: () => Promise<void>
}

/**
 * Milliseconds the client waits past `statementTimeoutMs` before it gives up on a statement itself: the
 * server's cancel leaves the connection usable, so it should come first.
 */
export const QUERY_TIMEOUT_MARGIN_MS = 250

/** How long a pool connection lives unless told otherwise (`maxLifetimeSeconds`). */
export const DEFAULT_MAX_LIFETIME_SECONDS = 300

// pg.types is global, and the host process may have changed how it reads int8. This pool reads
// int8 as the decimal string pg gives by default, whatever the global setting says.
const int8AsText = (): pg.TypeOverrides => {
  const types = new pg.TypeOverrides()
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => value)
  return types
}

/** Opens a connection pool to PostgreSQL and a kysely handle on it. Connects lazily, on the first query. */
export const createPostgresDatabase = (options: PostgresDatabaseOptions): PostgresDatabase => {
  const statementTimeoutMs = options.statementTimeoutMs ?? 750
  const queryTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : 0
  const settings = sessionSettings(options)
  const keepAlive = keepAliveOf(options.keepAlive)
  // A broken idle connection's error comes twice (its client's listener, then the pool's) and carries the
  // pg Client (pg-pool's `err.client`: its cancel key, its state): said once, without it.
  const told = new WeakSet<Error>()
  const onError = (error: Error) => {
    // pg-pool sets it between the two calls, whichever comes first.
    delete (error as { client?: unknown }).client
    if (told.has(error)) return
    told.add(error)
    options.onError?.(error)
  }
  const mode = options.pooler ?? 'detect'
  const send = options.sendSessionSettings !== false
  const connection = connectionConfig(
    options.connectionString,
    send && mode !== 'transaction' ? startupOptions(settings) : undefined,
    options.connectionStringName ?? 'connectionString',
  )
  const pool = new pg.Pool({
    max: options.poolSize ?? 10,
    maxLifetimeSeconds: options.maxLifetimeSeconds ?? DEFAULT_MAX_LIFETIME_SECONDS,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 1000,
    // No `statement_timeout` (a startup parameter of pg's own, which a transaction pooler refuses) and no
    // `query_timeout` (a timer per query): the guard bounds every query of `db` and the adapters from one
    // interval (ARCHITECTURE.md, 'Made by hand, on purpose', row "statement path").
    application_name: options.applicationName,
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAlive.idleMs,
    types: int8AsText(),
    // After the rest: the connection string's own parameters win, as pg lets them.
    ...connection.settings,
    Client: connection.Client,
  })
  // Without them, a backend terminated while its client idles in the pool emits an 'error' nobody hears, and
  // Node ends the process; the query that meets the broken connection becomes StoreUnavailable on its own.
  pool.on('error', onError)
  pool.on('connect', (client) => client.on('error', onError))

  const pooler = poolerAwareness(pool, mode, send ? perTransactionSettings(settings) : undefined)
  const guarded = guardPool(pool, { queryTimeoutMs, ...pooler.guard })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guarded }) })
  const connectionFacts = () => pooler.facts(guarded.connect)
  const runner: StatementRunner = {
    lockTimeoutMs: settings.lock_timeout,
    statementTimeoutMs,
    connectionFacts,
    runPrepared: guarded.runPrepared,
    runPreparedAfter: guarded.runPreparedAfter,
  }
  let closing: Promise<void> | undefined
  return {
    db,
    runner,
    pool,
    lockTimeoutMs: settings.lock_timeout,
    evictions: guarded.evictions,
    target: connection.description,
    connectionFacts,
    close: () => (closing ??= db.destroy()),
  }
}
