import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { asError } from './as-error.js'
import { destroySocket } from './broken-connections.js'
import { guardQueries, type Tracked } from './guarded-query.js'
import { endStatementSpan, startStatementSpan, tracedCheckOut } from './statement-spans.js'
import { connectionFailed } from './store-errors.js'
import {
  submitStatement,
  type RunDone,
  type RunPrepared,
  type RunPreparedAfter,
  type Statement,
  type SubmitStatement,
} from './statement.js'
import type { GuardOptions } from './guard-options.js'

/** The kysely pool over a pg pool, and what it counts, for tests and metrics. */
export type GuardedPool = PostgresPool & {
  /** Runs a statement of the request path on a connection of its own, checked out and released around it (statement.ts). */
  readonly runPrepared: RunPrepared
  /** Runs two statements of the request path, one after the other, on one connection. */
  readonly runPreparedAfter: RunPreparedAfter
  /** Connections destroyed because they broke or were presumed dead. */
  readonly evictions: () => number
}

/**
 * Wraps a pg pool for kysely so that dead connections leave it (kysely releases every client without an
 * error): a query unanswered after `queryTimeoutMs` fails, a connection it broke is destroyed, and every
 * connection not answered since is suspect, destroyed when next checked out (guarded-query.ts).
 */
export const guardPool = (pool: pg.Pool, options: GuardOptions = {}): GuardedPool => {
  const now = options.now ?? (() => performance.now())
  const queryTimeoutMs = options.queryTimeoutMs ?? 0
  const send =
    options.send ?? ((client, text, parameters) => client.query(text, parameters as Array<unknown>))
  const submit: SubmitStatement =
    options.submit ??
    ((client, statement, values, done) => submitStatement(client, statement, values, {}, done))
  const tracked = new WeakMap<pg.PoolClient, Tracked>()
  let evictions = 0
  // Every client connected and not yet removed, so that `end` can close what a silent path keeps.
  const open = new Set<pg.Client>()
  pool.on('connect', (client) => void open.add(client))
  pool.on('remove', (client) => void open.delete(client))

  const evict = (client: pg.PoolClient, reason: unknown) => {
    evictions++
    tracked.delete(client)
    // With an error, pg removes the client from the pool and ends it.
    client.release(asError(reason))
    destroySocket(client)
  }

  const { guarded, trusted } = guardQueries(queryTimeoutMs, now)

  // A query of kysely (or a connection's first use): a statement span when its checkout was traced.
  const query = (entry: Tracked, text: string, parameters: ReadonlyArray<unknown> | undefined) => {
    const span = entry.tracedIn && startStatementSpan({ text }, entry.client, entry.tracedIn)
    return new Promise<pg.QueryResult>((resolve, reject) =>
      guarded<pg.QueryResult>(
        entry,
        (answered) =>
          void send(entry.client, text, parameters ?? []).then(
            (result) => answered(undefined, result),
            answered,
          ),
        (error, result) => {
          endStatementSpan(span, error)
          return error === undefined ? resolve(result!) : reject(error)
        },
      ),
    )
  }

  const track = (client: pg.PoolClient): Tracked => {
    const known = tracked.get(client)
    if (known !== undefined) return known
    const entry: Tracked = {
      client,
      connectedAt: now(),
      lastAnsweredAt: now(),
      wrapper: {
        query: ((text: unknown, parameters?: ReadonlyArray<unknown>) =>
          // A cursor (kysely's streaming) goes through untouched.
          typeof text === 'string'
            ? query(entry, text, parameters)
            : client.query(text as pg.Submittable)) as unknown as PostgresPoolClient['query'],
        release: () => {
          entry.tracedIn = undefined
          if (entry.broken === undefined) client.release()
          else evict(client, entry.broken)
        },
      },
    }
    tracked.set(client, entry)
    return entry
  }

  // A connection fit to use: each turn hands one out or destroys an idle one, so this ends.
  const checkOut = (done: (error: unknown, entry?: Tracked) => void): void => {
    const connected = (error: Error | undefined, client: pg.PoolClient | undefined) => {
      if (error !== undefined && error !== null) return done(connectionFailed(error))
      const first = !tracked.has(client!)
      const entry = track(client!)
      const firstUse = first
        ? options.firstUse?.((text) => query(entry, text, undefined), client!)
        : undefined
      if (firstUse === undefined) return handOut(entry)
      firstUse.then(
        () => handOut(entry),
        (error: unknown) => {
          entry.wrapper.release()
          done(error)
        },
      )
    }
    const handOut = (entry: Tracked) => {
      if (trusted(entry)) return done(undefined, entry)
      evict(entry.client, new Error('presumed dead or demoted: another connection broke or refused a write'))
      checkOut(done)
    }
    pool.connect((error: Error | undefined, client: pg.PoolClient | undefined) => {
      if (error !== undefined && error !== null && options.retryConnect?.(error) === true)
        return void pool.connect(connected)
      connected(error, client)
    })
  }

  const runSteps = <Row>(
    first: Statement<unknown> | undefined,
    firstValues: ReadonlyArray<string | null>,
    statement: Statement<Row>,
    values: ReadonlyArray<string | null>,
    done: RunDone<Row>,
  ): void =>
    tracedCheckOut(checkOut, (error, entry, parent) => {
      if (error !== undefined) return done(asError(error), [])
      const send = <R>(s: Statement<R>, v: ReadonlyArray<string | null>, then: RunDone<R>) => {
        const span = parent === undefined ? undefined : startStatementSpan(s, entry!.client, parent)
        guarded<Array<R>>(
          entry!,
          (answered) => submit(entry!.client, s, v, answered),
          (failure, rows) => {
            endStatementSpan(span, failure)
            then(failure === undefined ? undefined : asError(failure), rows ?? [])
          },
        )
      }
      const last: RunDone<Row> = (failure, rows) => {
        entry!.wrapper.release()
        done(failure, rows, entry!.client)
      }
      if (first === undefined) return send(statement, values, last)
      send(first, firstValues, (failure) =>
        failure === undefined ? send(statement, values, last) : last(failure, []),
      )
    })

  return {
    // kysely asks synchronously where its call began: that context parents the wait and the statements.
    connect: () =>
      new Promise((resolve, reject) =>
        tracedCheckOut(checkOut, (error, entry, parent) => {
          if (error !== undefined) return reject(error)
          entry!.tracedIn = parent
          resolve(entry!.wrapper)
        }),
      ),
    runPrepared: <Row>(statement: Statement<Row>, values: ReadonlyArray<string | null>, done: RunDone<Row>) =>
      runSteps(undefined, [], statement, values, done),
    runPreparedAfter: runSteps,
    end: async () => {
      await pool.end()
      // pg ends each client with a goodbye that a silent path never answers: such sockets are destroyed a
      // second later (unreferenced: it keeps alive nothing that a silent socket does not).
      const left = [...open]
      if (left.length > 0)
        setTimeout(() => left.filter((client) => open.has(client)).forEach(destroySocket), 1000).unref()
    },
    evictions: () => evictions,
  }
}
