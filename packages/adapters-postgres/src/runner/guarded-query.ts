import type { Context } from '@opentelemetry/api'
import type { PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { isBrokenConnection, QueryReadTimeoutError } from './broken-connections.js'
import { watchDeadlines, type Deadline } from './query-deadlines.js'
import { refusesWrites } from './store-errors.js'

/** A connection of the guarded pool, and what its queries taught about it. */
export type Tracked = {
  readonly client: pg.PoolClient
  readonly wrapper: PostgresPoolClient
  /** When the connection was first handed out, in ms. */
  readonly connectedAt: number
  /** When the server last answered on this connection (or the connection was made), in ms. */
  lastAnsweredAt: number
  /** Set once a query broke the connection: it is then destroyed at its release. */
  broken?: unknown
  /** While checked out by kysely for a call whose span records: the context its statements' spans are children of. */
  tracedIn?: Context | undefined
}

/** Sends a query and calls back once, with its error or its answer. */
export type Start<A> = (answered: (error: unknown, value?: A) => void) => void

/**
 * What bounds each query of a pool: one unanswered after `queryTimeoutMs` fails (`watchDeadlines`); one that
 * broke its connection marks it broken, and every connection not answered since it was sent suspect. One
 * refused as read-only (SQLSTATE 25006, a server in recovery) marks its connection broken and every
 * connection made before it suspect: after a failover they may all be on the demoted primary, which still
 * answers, so only this finds them; the pool then connects again, to the host that takes writes.
 */
export const guardQueries = (queryTimeoutMs: number, now: () => number) => {
  let suspectBefore = Number.NEGATIVE_INFINITY
  let demotedAt = Number.NEGATIVE_INFINITY
  const deadlines = watchDeadlines(Math.max(1, Math.min(50, queryTimeoutMs / 4)), now)

  /** Sends one query on `entry` and settles it once: its answer, its error, or QueryReadTimeoutError. */
  const guarded = <A>(entry: Tracked, start: Start<A>, settle: (error: unknown, value?: A) => void): void => {
    const sentAt = now()
    let settled = false
    const fail = (error: unknown) => {
      if (isBrokenConnection(error)) {
        entry.broken ??= error
        suspectBefore = Math.max(suspectBefore, sentAt)
      } else if (refusesWrites(error)) {
        entry.broken ??= error
        demotedAt = Math.max(demotedAt, now())
      } else entry.lastAnsweredAt = now()
      settle(error)
    }
    const deadline: Deadline | undefined =
      queryTimeoutMs > 0
        ? {
            at: sentAt + queryTimeoutMs,
            expire: () => {
              if (settled) return
              settled = true
              fail(
                new QueryReadTimeoutError(
                  `Query read timeout: PostgreSQL did not answer within ${queryTimeoutMs} ms; the connection is destroyed`,
                ),
              )
            },
          }
        : undefined
    try {
      start((error, value) => {
        if (deadline !== undefined) deadlines.remove(deadline)
        if (settled) return
        settled = true
        if (error !== undefined && error !== null) return fail(error)
        entry.lastAnsweredAt = now()
        settle(undefined, value)
      })
    } catch (error) {
      // Nothing was sent: the connection is as it was.
      if (settled) return
      settled = true
      return settle(error)
    }
    // Watched once sent: a send that failed at once has settled already.
    if (deadline !== undefined && !settled) deadlines.add(deadline)
  }

  return {
    guarded,
    /** Whether a connection was answered since the last failure that broke one, and made after the last refusal. */
    trusted: (entry: Tracked) => entry.lastAnsweredAt >= suspectBefore && entry.connectedAt > demotedAt,
  }
}
