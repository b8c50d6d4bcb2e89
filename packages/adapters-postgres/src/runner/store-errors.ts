import { pgConnectionLost, pgConnectionSqlstate } from './pg-connection-failures.js'

// What a database error means for the request that met it: try again later (503), once more at once, or a bug.

// The network could not reach the server, or the connection broke.
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
])

// SQLSTATEs that mean "not now", never "wrong" (503 with Retry-After): the classes 08 (connection) and 53
// (resources), 57P0x (shutdown, idle session), 57014 (statement timeout, cancel), 25006 (read-only: a
// standby, a failover), 25P03 (idle in transaction), 55P03 (lock_timeout).
const UNAVAILABLE_SQLSTATES = new Set(['57014', '25006', '25P03', '55P03'])
const UNAVAILABLE_CLASSES = /^(08|53)[0-9A-Z]{3}$|^57P[0-9A-Z]{2}$/
// 40001 serialization_failure, 40P01 deadlock_detected: the transaction was rolled back whole, so
// running the same statement again is safe. Retried once; if it fails again, 503.
const RETRY_SQLSTATES = new Set(['40001', '40P01'])
const RECOVERY_MESSAGE = /recovery is in progress/
const SQLSTATE = /^[0-9A-Z]{5}$/

// A hot standby refusing a lock: 55000 with this message (55000 alone also means other states).
const inRecovery = ({ code, message }: { code?: unknown; message?: unknown }): boolean =>
  code === '55000' && typeof message === 'string' && RECOVERY_MESSAGE.test(message)

// pg-pool's words for a pool that is being closed (a shutdown): no error of the request's.
const POOL_ENDED = /^Cannot use a pool after calling end on the pool/

/** What an error means for the caller: try again later (503), try once more at once, or a bug. */
export type StoreErrorKind = 'unavailable' | 'retry' | 'defect'

type ErrorFields = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }

// Errors of opening a connection (guarded-pool.ts marks them): the server refused the session.
const connectionFailures = new WeakSet<object>()

/**
 * Marks an error met while opening a connection, before any statement of the request ran. When the server
 * refused the session with a SQLSTATE that means "wrong" elsewhere (55000 "database is not currently
 * accepting connections", 3D000 a dropped database, class 28 a role or password changed, 42501 CONNECT
 * revoked), no request caused it and none can mend it: the store cannot serve now, a 503, never a 500.
 */
export const connectionFailed = (error: unknown): unknown => {
  if (typeof error === 'object' && error !== null) connectionFailures.add(error)
  return error
}

// Whether PostgreSQL itself answered, somewhere in the error (its cause, an AggregateError's errors).
const answeredByServer = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 8) return false
  const { code, cause, errors } = error as ErrorFields
  if (typeof code === 'string' && SQLSTATE.test(code)) return true
  const inner = [cause, ...(Array.isArray(errors) ? (errors as Array<unknown>) : [])]
  return inner.some((e) => answeredByServer(e, depth + 1))
}

const ownKind = (error: ErrorFields): StoreErrorKind | undefined => {
  const { code, message } = error
  if (typeof code === 'string') {
    if (RETRY_SQLSTATES.has(code)) return 'retry'
    if (NODE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_CLASSES.test(code))
      return 'unavailable'
    if (inRecovery(error)) return 'unavailable'
  }
  // pg's own timeouts and broken clients, which carry no code (a server's error that quotes such words, as
  // `relation "connection timeout" does not exist`, has one). Not its 08004, a server without the TLS that
  // sslmode asks for: the operator's to mend, which no wait does (a start with it ends at once).
  const sqlstate = code === undefined ? pgConnectionSqlstate(message) : undefined
  if (sqlstate === '08001' || sqlstate === '08006') return 'unavailable'
  if (typeof message === 'string' && POOL_ENDED.test(message)) return 'unavailable'
  return undefined
}

/** Classifies a database error (a bug is a `defect`), following `cause` and an AggregateError's `errors`. */
export const classifyStoreError = (error: unknown, depth = 0): StoreErrorKind => {
  if (typeof error !== 'object' || error === null || depth > 8) return 'defect'
  const fields = error as ErrorFields
  const own = ownKind(fields)
  if (own !== undefined) return own
  if (connectionFailures.has(error) && answeredByServer(error)) return 'unavailable'
  const inner = [fields.cause, ...(Array.isArray(fields.errors) ? (fields.errors as Array<unknown>) : [])]
  const kinds = inner.map((e) => classifyStoreError(e, depth + 1))
  if (kinds.includes('retry')) return 'retry'
  if (kinds.includes('unavailable')) return 'unavailable'
  return 'defect'
}

// The socket of a connection that was open closed under its statement (node's codes; pg's words: pgConnectionLost).
const SOCKET_LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])
// The server ended the session: an administrator's pg_terminate_backend or a fast shutdown (57P01), a crash
// of another backend (57P02).
const SESSION_ENDED = new Set(['57P01', '57P02'])

/**
 * Whether the connection under a statement was lost after it was opened: the server ended the session or
 * the socket closed (class 08 but 08001 and 08004, which say no session was opened). A read may run once
 * more on another connection. Not a timeout (it would wait as long again), not a failure to connect (the
 * pool's own to retry), not a session that refused a write.
 */
export const lostSession = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 8 || connectionFailures.has(error)) return false
  const { code, message, cause } = error as ErrorFields
  if (typeof code === 'string') {
    if (SOCKET_LOST.has(code) || SESSION_ENDED.has(code)) return true
    if (code.startsWith('08')) return code !== '08001' && code !== '08004'
  } else if (typeof message === 'string' && pgConnectionLost(message)) return true
  return lostSession(cause, depth + 1)
}

/** Whether an error means the store cannot serve now (a deadlock or serialization failure too), not a bug. */
export const isUnavailableError = (error: unknown): boolean => classifyStoreError(error) !== 'defect'

/** Whether the database answered but refuses writes: 25006 (a read-only transaction) or a hot standby's 55000. */
export const refusesWrites = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 8) return false
  const fields = error as ErrorFields
  return fields.code === '25006' || inRecovery(fields) || refusesWrites(fields.cause, depth + 1)
}

/** The SQLSTATE of an error from PostgreSQL (or of its cause), if it has one. */
export const sqlstateOf = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== 'object' || error === null || depth > 8) return undefined
  const { code, cause } = error as ErrorFields
  if (typeof code === 'string' && SQLSTATE.test(code)) return code
  return sqlstateOf(cause, depth + 1)
}
