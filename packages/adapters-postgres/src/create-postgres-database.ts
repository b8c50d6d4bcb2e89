import { CompiledQuery, Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { DEFAULT_LOCK_TIMEOUT_MS } from './adapter-options.js'
import { guardPool } from './guarded-pool.js'
import { poolerAwareness, type ConnectionFacts, type PoolerMode } from './pooler.js'
import type { Database } from './schema.js'
import { asError } from './as-error.js'
import type { RunPrepared } from './statement.js'
import {
  keepAliveOf,
  perTransactionSettings,
  sessionSettings,
  startupOptions,
  withOptions,
  type KeepAliveOptions,
} from './session-settings.js'

export { sessionSettings, type KeepAliveOptions } from './session-settings.js'
export type { ConnectionFacts, PoolerMode } from './pooler.js'

/** Runs one statement with its values; resolves with its rows. */
export type RunStatement = <Row>(
  text: string,
  values: ReadonlyArray<unknown>,
) => Promise<{ readonly rows: ReadonlyArray<Row> }>

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
   * Whether to send the server-side settings (the timeouts, TCP keepalives) at all; true unless
   * given. Directly to PostgreSQL they go in the `options` startup parameter; behind a pooler, the
   * timeouts are set in front of each statement instead (see `pooler`). False: none is sent, and
   * the role's or database's own apply (`ALTER ROLE … SET`).
   */
  readonly sendSessionSettings?: boolean
  /** Whether a transaction pooler is in between; `detect` unless given (PoolerMode). */
  readonly pooler?: PoolerMode
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
  /** What the pool found out about the path to PostgreSQL; connects once if it has not yet. */
  readonly connectionFacts: () => Promise<ConnectionFacts>
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

// What each handle made here knows, for the adapters and migrateToLatest given only the handle:
// the lock timeout they repeat inside their writes, what the pool learned of its path (a pooler?),
// and how they run a statement on its guarded pool directly (a Statement, without a promise).
type HandleFacts = {
  readonly lockTimeoutMs: number
  readonly connectionFacts: () => Promise<ConnectionFacts>
  readonly run: RunStatement
  readonly runPrepared: RunPrepared
}
const handles = new WeakMap<object, HandleFacts>()

/**
 * The lock timeout the adapters set inside their writes on `db`: the pool's `lockTimeoutMs` when
 * `db` was made by createPostgresDatabase, else DEFAULT_LOCK_TIMEOUT_MS.
 */
export const lockTimeoutOf = (db: object): number => handles.get(db)?.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS

/**
 * Whether `db` reaches PostgreSQL through a connection pooler: learned by createPostgresDatabase
 * (connecting once if needed); false for a handle made elsewhere.
 */
export const throughPooler = async (db: object): Promise<boolean> =>
  (await handles.get(db)?.connectionFacts())?.pooler ?? false

/**
 * How the adapters run a statement on `db`: on a handle made by createPostgresDatabase, directly on
 * its guarded pool (kysely's executor, connection provider, driver and connection are an async
 * layer each, which cost a request on PostgreSQL allocation and microtasks: bench/RESULTS.md); on
 * any other kysely handle, through kysely.
 */
export const runStatementOn = (db: Kysely<Database>): RunStatement =>
  handles.get(db)?.run ??
  (<Row>(text: string, values: ReadonlyArray<unknown>) =>
    db.executeQuery(CompiledQuery.raw(text, [...values]) as CompiledQuery<Row>))

/**
 * How the adapters run a statement of the request path on `db`: on a handle made by
 * createPostgresDatabase, the guarded pool's `runPrepared` (statement.ts: no pg Query, Result or
 * promise; about a third of a PostgreSQL list's CPU in this process, bench/RESULTS.md); on any other
 * kysely handle, through kysely, each row's columns given to the decoder as text.
 */
export const preparedRunnerOn = (db: Kysely<Database>): RunPrepared => {
  const facts = handles.get(db)
  if (facts !== undefined) return facts.runPrepared
  const run = runStatementOn(db)
  return (statement, values, done) =>
    void run<Record<string, unknown>>(statement.text, values).then(
      ({ rows }) => {
        let decoded
        try {
          decoded = rows.map((row) =>
            statement.decode(statement.columns.map((column) => asText(row[column]))),
          )
        } catch (error) {
          return done(asError(error), [])
        }
        done(undefined, decoded)
      },
      (error: unknown) => done(asError(error), []),
    )
}

// A value as PostgreSQL's text output gives it, for the types of the statements' columns (text, int8).
const asText = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value)

/** Opens a connection pool to PostgreSQL and a kysely handle on it. Connects lazily, on the first query. */
export const createPostgresDatabase = (options: PostgresDatabaseOptions): PostgresDatabase => {
  const statementTimeoutMs = options.statementTimeoutMs ?? 750
  const queryTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : 0
  const settings = sessionSettings(options)
  const keepAlive = keepAliveOf(options.keepAlive)
  const onError = options.onError ?? (() => {})
  const mode = options.pooler ?? 'detect'
  const send = options.sendSessionSettings !== false
  const pool = new pg.Pool({
    ...withOptions(
      options.connectionString,
      send && mode !== 'transaction' ? startupOptions(settings) : undefined,
    ),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 1000,
    // No `statement_timeout` here: pg would send it as a startup parameter of its own, which a
    // transaction pooler refuses (it closes the connection); it travels in `options` instead.
    // No `query_timeout` either: pg would set and clear a timer for every query (a few µs of each
    // request, bench/RESULTS.md). The guard below times out every query made through `db` and the
    // adapters, from one interval; a query on `pool` itself has the server's statement timeout.
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

  const pooler = poolerAwareness(pool, mode, send ? perTransactionSettings(settings) : undefined)
  const guarded = guardPool(pool, { queryTimeoutMs, ...pooler.guard })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guarded }) })
  const connectionFacts = () => pooler.facts(guarded.connect)
  handles.set(db, {
    lockTimeoutMs: settings.lock_timeout,
    connectionFacts,
    run: guarded.run as RunStatement,
    runPrepared: guarded.runPrepared,
  })
  let closing: Promise<void> | undefined
  return {
    db,
    pool,
    lockTimeoutMs: settings.lock_timeout,
    evictions: guarded.evictions,
    connectionFacts,
    close: () => (closing ??= db.destroy()),
  }
}
