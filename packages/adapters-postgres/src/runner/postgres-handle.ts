import { CompiledQuery, type Kysely } from 'kysely'
import { DEFAULT_LOCK_TIMEOUT_MS } from './adapter-options.js'
import { asError } from './as-error.js'
import { type Database, type KyselyOf, withOurTables } from './schema.js'
import type { RunPrepared, RunPreparedAfter } from './statement.js'
import { endStatementSpan, startStatementSpan } from './statement-spans.js'

/** What the pool found out about the path to PostgreSQL. */
export type ConnectionFacts = {
  /** Whether a pooler is in between (then nothing may outlive a transaction). */
  readonly pooler: boolean
  /** Where the timeouts are set: `startup` (the session), `per transaction` (behind a pooler), or `none`. */
  readonly settings: 'startup' | 'per transaction' | 'none'
  /** Whether the server refused the `options` startup parameter (PgBouncer does, unless told to ignore it). */
  readonly startupOptionsRefused: boolean
}

/** How the adapters run their statements, and what they need to know of the pool beneath. */
export type StatementRunner = {
  /** Runs a statement of the request path (statement.ts). */
  readonly runPrepared: RunPrepared
  /** Runs two statements one after the other, on one connection where the pool allows it. */
  readonly runPreparedAfter: RunPreparedAfter
  /** The lock timeout the adapters repeat inside their writes. */
  readonly lockTimeoutMs: number
  /** The server's statement timeout, 0 for none: also how long an insert's intent lives. */
  readonly statementTimeoutMs: number
  /** What the pool learned of its path to PostgreSQL (a pooler?); may connect once. */
  readonly connectionFacts: () => Promise<ConnectionFacts>
}

/**
 * What the adapters are given: kysely on the schema (migrations, the key store, the usage log) and
 * the runner of the pool beneath it (the request path). createPostgresDatabase makes one; for a
 * kysely instance made elsewhere (an embedder's own, a transaction), `fromKysely`.
 */
export type PostgresHandle = {
  readonly db: Kysely<Database>
  readonly runner: StatementRunner
}

/** What the adapters cannot learn from a kysely instance made elsewhere. */
export type FromKyselyOptions = {
  /** DEFAULT_LOCK_TIMEOUT_MS unless given. */
  readonly lockTimeoutMs?: number | undefined
  /** The server's statement timeout; 750 ms (createPostgresDatabase's default) unless given. */
  readonly statementTimeoutMs?: number | undefined
  /**
   * Where the statements run, which kysely does not tell: their spans' `db.namespace`, `server.address`
   * and `server.port` (left out unless given).
   */
  readonly target?:
    | {
        readonly database?: string | undefined
        readonly host?: string | undefined
        readonly port?: number | undefined
      }
    | undefined
}

// A value as PostgreSQL's text output gives it, for the statements' column types (text, int8, boolean).
const asText = (value: unknown): string | null => {
  if (value === null || value === undefined) return null
  if (typeof value === 'boolean') return value ? 't' : 'f'
  return String(value)
}

/**
 * A handle on a kysely instance made elsewhere: its statements go through kysely (each row's columns
 * given to the decoder as text), two in turn as they come, and no pooler is assumed.
 */
export const fromKysely = <DB extends Database>(
  yours: KyselyOf<DB>,
  options: FromKyselyOptions = {},
): PostgresHandle => {
  const db = withOurTables(yours)
  const target = options.target ?? {}
  const runPrepared: RunPrepared = (statement, values, done) => {
    const span = startStatementSpan(statement, target)
    const end: typeof done = (error, rows) => {
      endStatementSpan(span, error)
      done(error, rows, target)
    }
    void db.executeQuery(CompiledQuery.raw(statement.text, [...values])).then(
      ({ rows }) => {
        let decoded
        try {
          decoded = (rows as ReadonlyArray<Record<string, unknown>>).map((row) =>
            statement.decode(statement.columns.map((column) => asText(row[column]))),
          )
        } catch (error) {
          return end(asError(error), [])
        }
        end(undefined, decoded)
      },
      (error: unknown) => end(asError(error), []),
    )
  }
  return {
    db,
    runner: {
      runPrepared,
      runPreparedAfter: (first, firstValues, statement, values, done) =>
        runPrepared(first, firstValues, (error) =>
          error === undefined ? runPrepared(statement, values, done) : done(error, []),
        ),
      lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      statementTimeoutMs: options.statementTimeoutMs ?? 750,
      connectionFacts: async () => ({ pooler: false, settings: 'none', startupOptionsRefused: false }),
    },
  }
}

// How long an insert's intent may wait for its insert when the server has no statement timeout.
const UNBOUNDED_INTENT_MS = 10_000

/** How long an insert's intent lives (insert-intents.ts): no insert runs longer than a statement. */
export const intentLifetimeOf = (runner: StatementRunner): number =>
  runner.statementTimeoutMs > 0 ? runner.statementTimeoutMs : UNBOUNDED_INTENT_MS
