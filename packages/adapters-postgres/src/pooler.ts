import pg from 'pg'
import type { GuardOptions } from './guarded-pool.js'
import { withSettingsFirst } from './session-settings.js'
import { submitStatement, type Sending } from './statement.js'
import { sqlstateOf } from './unavailable.js'

/**
 * How the pool learns whether a connection pooler (PgBouncer) is between it and PostgreSQL:
 * `detect` (the default) compares, on the first connection, the backend pid the connection was
 * given at startup with `pg_backend_pid()` (a pooler hands out keys of its own); `transaction`
 * says there is one, `none` that there is none.
 */
export type PoolerMode = 'detect' | 'transaction' | 'none'

/** What the pool found out about the path to PostgreSQL. */
export type ConnectionFacts = {
  /** Whether a pooler is in between (then nothing may outlive a transaction). */
  readonly pooler: boolean
  /**
   * Where the server-side timeouts are set: `startup` (the `options` startup parameter, for the
   * session), `per transaction` (in front of each statement, for its transaction only: behind a
   * pooler), or `none` (sendSessionSettings: false).
   */
  readonly settings: 'startup' | 'per transaction' | 'none'
  /** Whether the server refused the `options` startup parameter (PgBouncer does, unless told to ignore it). */
  readonly startupOptionsRefused: boolean
}

// What a server connection answers to a named statement that another client prepared on it (42P05)
// or that it never saw (26000): the path goes through a pooler after all. Nothing ran.
const SHARED_SERVER_CONNECTION = new Set(['26000', '42P05'])
// At most this many statements are prepared on each connection; any other is sent unnamed.
const MOST_PREPARED = 64

/**
 * Names for the statements sent directly to PostgreSQL: each is then parsed and planned once per
 * connection (pg prepares it on the connection's first use of the name), not at every request:
 * a list query answered 20–25 % more often with 10–20 % less of this process's CPU on the
 * benchmark's machine (bench/RESULTS.md). Behind a transaction pooler the server connection
 * changes between transactions, so statements stay unnamed there.
 */
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

// A named statement as a Query of its own: given a config object, pg copies it with every
// property descriptor first (cloneQueryConfig: 13.6 µs of each list request in a CPU profile).
// The name is read when the query is submitted.
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

/**
 * Whether a connection goes through a pooler, from `pid` (what BACKEND_PID answered on it): a pooler
 * answers the startup with a backend key of its own, not the server's pid.
 */
export const startupKeyIsNotTheServers = (client: pg.ClientBase, pid: unknown): boolean =>
  Number(pid) !== (client as unknown as { processID?: number }).processID

// What PgBouncer answers (08P01) to a startup parameter it does not know.
const REFUSED_PARAMETER = /unsupported startup parameter/

/**
 * What the guarded pool of `pool` does about a pooler: learns whether there is one (`firstUse`,
 * `retryConnect`), and behind one sends `perTransaction` (the timeouts; none when undefined) in
 * front of each statement (`rewrite`), since a session setting would stay on whichever server
 * connection the pooler picked. `facts` connects once if nothing is known yet.
 */
export const poolerAwareness = (pool: pg.Pool, mode: PoolerMode, perTransaction: string | undefined) => {
  // undefined until the first connection tells (mode `detect`).
  let pooler: boolean | undefined = mode === 'detect' ? undefined : mode === 'transaction'
  let startupOptionsRefused = false
  const prepared = preparedStatements()
  // How a statement goes, by what the first connection revealed.
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
