import type pg from 'pg'
import { classifyStoreError, sqlstateOf } from './store-errors.js'

// SQLSTATEs after which the server has closed the session: the connection is of no further use.
const SESSION_ENDED = /^08[0-9A-Z]{3}$|^57P0[1-5]$|^25P03$/

/**
 * Whether a failed query leaves its connection unfit: the server never answered (a timeout, a reset) or ended
 * the session. An error the server answered with (a statement timeout, a constraint) leaves it healthy.
 */
export const isBrokenConnection = (error: unknown): boolean => {
  const sqlstate = sqlstateOf(error)
  return sqlstate === undefined ? classifyStoreError(error) === 'unavailable' : SESSION_ENDED.test(sqlstate)
}

/** Destroys pg's private `connection.stream` (guarded): a silent socket never answers `client.end()`. */
export const destroySocket = (client: pg.ClientBase): void =>
  (client as unknown as { connection?: { stream?: { destroy: () => void } } }).connection?.stream?.destroy()

/**
 * Ends a client, destroying its socket if the goodbye is not answered within `ms`: on a silent path (a frozen
 * host, an expired NAT entry) `end()` alone would wait forever.
 */
export const endWithin = (client: pg.Client, ms: number): Promise<void> => {
  const ended = client.end().catch(() => {})
  const force = setTimeout(() => destroySocket(client), ms)
  void ended.then(() => clearTimeout(force))
  return ended
}

/** The error of a query that the server did not answer in time; its connection is destroyed. */
export class QueryReadTimeoutError extends Error {
  override readonly name = 'QueryReadTimeoutError'
}
