import { CompiledQuery, type Kysely } from 'kysely'
import type { Database } from './schema.js'

/** Runs one statement with its values; resolves with its rows. */
export type RunStatement = <Row>(
  text: string,
  values: ReadonlyArray<unknown>,
) => Promise<{ readonly rows: ReadonlyArray<Row> }>

// The guarded pool's own runner of each handle made by createPostgresDatabase.
const runners = new WeakMap<object, RunStatement>()

/** Makes `run` the way statements on `db` are run by the adapters (createPostgresDatabase does). */
export const registerRunner = (db: object, run: RunStatement): void => void runners.set(db, run)

/**
 * How the adapters run a statement on `db`. On a handle made by createPostgresDatabase, directly
 * on its guarded pool: kysely's executor, connection provider, driver and connection are an async
 * layer each, which cost a request on PostgreSQL microtasks and promises held while it waits
 * (bench/RESULTS.md). On any other kysely handle, through kysely.
 */
export const runStatementOn = (db: Kysely<Database>): RunStatement =>
  runners.get(db) ??
  (<Row>(text: string, values: ReadonlyArray<unknown>) =>
    db.executeQuery(CompiledQuery.raw(text, [...values]) as CompiledQuery<Row>))
