import type pg from 'pg'
import { classifyStoreError, sqlstateOf } from './unavailable.js'

// SQLSTATEs after which the server has closed the session: the connection is of no further use.
const SESSION_ENDED = /^08[0-9A-Z]{3}$|^57P0[1-5]$|^25P03$/

/**
 * Tells whether a failed query leaves its connection unfit for another: the server never answered
 * (pg's query timeout, a reset or closed socket), or it answered by ending the session. An error
 * the server answered with (a statement timeout, a constraint) leaves a healthy connection.
 */
export const isBrokenConnection = (error: unknown): boolean => {
  const sqlstate = sqlstateOf(error)
  return sqlstate === undefined ? classifyStoreError(error) === 'unavailable' : SESSION_ENDED.test(sqlstate)
}

/**
 * Destroys a pg client's socket (pg keeps it on `connection.stream`): a socket that went silent
 * never answers the goodbye that `client.end()` sends.
 */
export const destroySocket = (client: pg.ClientBase): void =>
  (client as unknown as { connection?: { stream?: { destroy: () => void } } }).connection?.stream?.destroy()

/** The error of a query that the server did not answer in time; its connection is destroyed. */
export class QueryReadTimeoutError extends Error {
  override readonly name = 'QueryReadTimeoutError'
}
