import pg from 'pg'
import type { GuardOptions } from './guard-options.js'
import { withSettingsFirst } from './session-settings.js'
import type { ConnectionFacts } from './postgres-handle.js'
import { submitStatement, type Sending } from './statement.js'
import { sqlstateOf } from './store-errors.js'

/** How the pool learns of a pooler: `detect` (the default: the first connection's backend pid) or as told. */
export type PoolerMode = 'detect' | 'transaction' | 'none'

// What a server connection answers to a named statement that another client prepared on it (42P05)
// or that it never saw (26000): the path goes through a pooler after all. Nothing ran.
const SHARED_SERVER_CONNECTION = new Set(['26000', '42P05'])
// At most this many statements are prepared on each connection; any other is sent unnamed.
const MOST_PREPARED = 64

// Statements sent directly to PostgreSQL are named, so each is parsed and planned once per connection
// (bench/RESULTS.md#postgresql-list-20); behind a transaction pooler they stay unnamed.
const preparedStatements = () => {
  const names = new Map<string, string>()
  let stopped = false
  return {
    nameOf: (text: string): string | undefined => {
      if (stopped) return undefined
      let name = names.get(text)
      if (name === undefined && names.size < MOST_PREPARED) {
        name = `pets_${names.size + 1}`
        names.set(text, name)
      }
      return name
    },
    stop: () => void (stopped = true),
  }
}

// A Query whose name is set after it is made (pg reads it at submit: private, guarded in
// test/private-api-guards.test.ts), since a config object would first be copied descriptor by descriptor.
const sendNamed = (client: pg.PoolClient, name: string, text: string, values: ReadonlyArray<unknown>) =>
  new Promise<pg.QueryResult>((resolve, reject) => {
    const query = new pg.Query(text, values as Array<unknown>, (error, result) =>
      error === undefined || error === null ? resolve(result) : reject(error),
    )
    ;(query as unknown as { name: string }).name = name
    client.query(query)
  })

/** The statement whose `pid` startupKeyIsNotTheServers compares. */
export const BACKEND_PID = 'SELECT pg_backend_pid() AS pid'

/** Whether a pooler answered the startup: pg's private `processID` is not the `pid` BACKEND_PID answered. */
export const startupKeyIsNotTheServers = (client: pg.ClientBase, pid: unknown): boolean =>
  Number(pid) !== (client as unknown as { processID?: number }).processID

// What PgBouncer answers (08P01) to a startup parameter it does not know.
const REFUSED_PARAMETER = /unsupported startup parameter/

/** What the guarded pool does about a pooler: finds it, then sends the timeouts ahead of each statement. */
export const poolerAwareness = (pool: pg.Pool, mode: PoolerMode, perTransaction: string | undefined) => {
  let pooler: boolean | undefined = mode === 'detect' ? undefined : mode === 'transaction'
  let startupOptionsRefused = false
  const prepared = preparedStatements()
  const sendingOf = (text: string, values: ReadonlyArray<unknown>): Sending => {
    if (pooler === false && values.length > 0) {
      const name = prepared.nameOf(text)
      if (name !== undefined) return { name }
    }
    const inline =
      pooler === true && perTransaction !== undefined
        ? withSettingsFirst(perTransaction, text, values)
        : undefined
    return inline === undefined ? {} : { inline }
  }
  // A named statement the server connection lacks or has from another client: a pooler the first
  // connection did not reveal, so no statement may outlive a transaction. Nothing ran.
  const unnamedFromNow = (error: unknown): boolean => {
    if (!SHARED_SERVER_CONNECTION.has(sqlstateOf(error) ?? '')) return false
    prepared.stop()
    return true
  }
  const guard: Pick<GuardOptions, 'send' | 'submit' | 'retryConnect' | 'firstUse'> = {
    send: async (client, text, values) => {
      const { name, inline } = sendingOf(text, values)
      if (name !== undefined)
        return sendNamed(client, name, text, values).catch((error: unknown) => {
          if (!unnamedFromNow(error)) throw error
          return client.query(text, values as Array<unknown>)
        })
      if (inline === undefined) return client.query(text, values as Array<unknown>)
      // Several statements in one message answer an array of results; the last is the caller's.
      const results = (await client.query(inline)) as pg.QueryResult | Array<pg.QueryResult>
      return Array.isArray(results) ? results.at(-1)! : results
    },
    submit: (client, statement, values, done) => {
      const sending = sendingOf(statement.text, values)
      submitStatement(client, statement, values, sending, (error, rows) =>
        sending.name !== undefined && error !== undefined && unnamedFromNow(error)
          ? submitStatement(client, statement, values, {}, done)
          : done(error, rows),
      )
    },
    // A server that refuses `options` (PgBouncer, unless `ignore_startup_parameters` lists it) is
    // a pooler: connect without it, at once, and from then on.
    retryConnect: (error) => {
      if (mode !== 'detect' || !(error instanceof Error) || !REFUSED_PARAMETER.test(error.message))
        return false
      // Connections begun before the first refusal came back still carried them: once more, each.
      if (pool.options.options === undefined && !startupOptionsRefused) return false
      startupOptionsRefused = true
      pooler = true
      pool.options.options = undefined
      return true
    },
    firstUse: async (query, client) => {
      if (pooler !== undefined) return
      const { rows } = await query(BACKEND_PID)
      pooler ??= startupKeyIsNotTheServers(client, (rows[0] as { pid?: unknown } | undefined)?.pid)
    },
  }
  return {
    guard,
    facts: async (connect: () => Promise<{ release: () => void }>): Promise<ConnectionFacts> => {
      if (pooler === undefined) (await connect()).release()
      return {
        pooler: pooler === true,
        settings: perTransaction === undefined ? 'none' : pooler === true ? 'per transaction' : 'startup',
        startupOptionsRefused,
      }
    },
  }
}

/** What the pool reached, in words, for the log. */
export const describeFacts = (facts: ConnectionFacts): string =>
  facts.pooler
    ? `a connection pooler (nothing outlives a transaction; timeouts set per transaction${facts.startupOptionsRefused ? '; it refused the options startup parameter' : ''})`
    : 'PostgreSQL directly (timeouts set for the session at startup)'
