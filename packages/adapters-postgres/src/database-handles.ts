import { CompiledQuery, type Kysely } from 'kysely'
import { DEFAULT_LOCK_TIMEOUT_MS } from './adapter-options.js'
import { asError } from './as-error.js'
import type { ConnectionFacts } from './pooler.js'
import type { Database } from './schema.js'
import type { RunPrepared, RunPreparedAfter } from './statement.js'

/** Runs one statement with its values; resolves with its rows. */
export type RunStatement = <Row>(
  text: string,
  values: ReadonlyArray<unknown>,
) => Promise<{ readonly rows: ReadonlyArray<Row> }>

// What each handle made here knows, for the adapters and migrateToLatest given only the handle:
// the lock timeout they repeat inside their writes, what the pool learned of its path (a pooler?),
// and how they run a statement on its guarded pool directly (a Statement, without a promise).
export type HandleFacts = {
  readonly lockTimeoutMs: number
  /** The server's statement timeout, 0 for none. */
  readonly statementTimeoutMs: number
  readonly connectionFacts: () => Promise<ConnectionFacts>
  readonly runPrepared: RunPrepared
  readonly runPreparedAfter: RunPreparedAfter
}
const handles = new WeakMap<object, HandleFacts>()

/** Remembers what createPostgresDatabase knows of the handle it made. */
export const rememberHandle = (db: object, facts: HandleFacts): void => void handles.set(db, facts)

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
const runStatementOn =
  (db: Kysely<Database>): RunStatement =>
  <Row>(text: string, values: ReadonlyArray<unknown>) =>
    db.executeQuery(CompiledQuery.raw(text, [...values]) as CompiledQuery<Row>)

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

// A value as PostgreSQL's text output gives it, for the types of the statements' columns (text,
// int8, boolean).
const asText = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : typeof value === 'boolean'
      ? value
        ? 't'
        : 'f'
      : String(value)

/**
 * How the adapters run two statements of the request path one after the other: on a handle made by
 * createPostgresDatabase, on one connection of its guarded pool; on any other, one run after the
 * other.
 */
export const preparedPairRunnerOn = (db: Kysely<Database>): RunPreparedAfter => {
  const facts = handles.get(db)
  if (facts !== undefined) return facts.runPreparedAfter
  const run = preparedRunnerOn(db)
  return (first, firstValues, statement, values, done) =>
    run(first, firstValues, (error) => (error === undefined ? run(statement, values, done) : done(error, [])))
}

// How long an insert's intent may wait for its insert when the server has no statement timeout.
const UNBOUNDED_INTENT_MS = 10_000

/**
 * How long an intent to insert pets lives (insert-intents.ts): the statement timeout of a handle
 * made by createPostgresDatabase (no insert runs longer), else 750 ms, the default of that timeout.
 */
export const intentLifetimeOf = (db: object): number => {
  const ms = handles.get(db)?.statementTimeoutMs ?? 750
  return ms > 0 ? ms : UNBOUNDED_INTENT_MS
}
