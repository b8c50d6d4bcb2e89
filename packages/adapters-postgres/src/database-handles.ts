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

// What createPostgresDatabase knows of each handle it made, for the adapters and migrateToLatest given only
// the handle: the lock timeout, what the pool learned of its path, and its statement path.
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

/** The lock timeout of a handle made by createPostgresDatabase, else DEFAULT_LOCK_TIMEOUT_MS. */
export const lockTimeoutOf = (db: object): number => handles.get(db)?.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS

/** Whether a handle made by createPostgresDatabase goes through a pooler (connecting once if needed). */
export const throughPooler = async (db: object): Promise<boolean> =>
  (await handles.get(db)?.connectionFacts())?.pooler ?? false

const runStatementOn =
  (db: Kysely<Database>): RunStatement =>
  <Row>(text: string, values: ReadonlyArray<unknown>) =>
    db.executeQuery(CompiledQuery.raw(text, [...values]) as CompiledQuery<Row>)

/**
 * How the adapters run a request-path statement on `db`: on a handle of createPostgresDatabase, its guarded
 * pool's `runPrepared` (ARCHITECTURE.md, 'Made by hand, on purpose', row "statement path"); else kysely.
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

// A value as PostgreSQL's text output gives it, for the statements' column types (text, int8, boolean).
const asText = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : typeof value === 'boolean'
      ? value
        ? 't'
        : 'f'
      : String(value)

/** Runs two request-path statements in turn, on one connection when `db` came from createPostgresDatabase. */
export const preparedPairRunnerOn = (db: Kysely<Database>): RunPreparedAfter => {
  const facts = handles.get(db)
  if (facts !== undefined) return facts.runPreparedAfter
  const run = preparedRunnerOn(db)
  return (first, firstValues, statement, values, done) =>
    run(first, firstValues, (error) => (error === undefined ? run(statement, values, done) : done(error, [])))
}

// How long an insert's intent may wait for its insert when the server has no statement timeout.
const UNBOUNDED_INTENT_MS = 10_000

/** How long an insert's intent lives (insert-intents.ts): the handle's statement timeout, else 750 ms. */
export const intentLifetimeOf = (db: object): number => {
  const ms = handles.get(db)?.statementTimeoutMs ?? 750
  return ms > 0 ? ms : UNBOUNDED_INTENT_MS
}
