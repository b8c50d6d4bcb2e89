// pg reports its own failures of a connection with plain Errors that carry no code. This names each with
// the SQLSTATE of class 08 that the SQL standard has for it, as pgjdbc reports these same failures: the
// store takes them as "cannot serve now" (store-errors.ts), the service's fatal line quotes the code
// (apps/api's operational-failure.ts). No pg import: commands and the memory mode load it without pg.

/** pg's words when the server answers that it has no TLS, and sslmode asks for it. */
export const NO_TLS = 'The server does not support SSL connections'

/**
 * pg's words for a connection that was open and broke: the socket closed under a statement, or a client that
 * broke before is asked again. Not a timeout (no answer in time), whose connection may still be there.
 */
export const pgConnectionLost = (message: string): boolean =>
  /^Connection terminated unexpectedly|is not queryable/.test(message)

// Each a regex literal (the regex audits check them), or the exact words.
const CODES: ReadonlyArray<readonly [(message: string) => boolean, string]> = [
  // sqlserver_rejected_establishment_of_sqlconnection: the server would not speak TLS.
  [(message) => message === NO_TLS, '08004'],
  // sqlclient_unable_to_establish_sqlconnection: no connection opened within the connect timeout.
  [
    (message) => /connection timeout|timeout exceeded when trying to connect|^timeout expired$/.test(message),
    '08001',
  ],
  // connection_failure: a connection that was open broke, or stopped answering.
  [
    (message) => pgConnectionLost(message) || /^Connection terminated|^Query read timeout/.test(message),
    '08006',
  ],
]

/** The SQLSTATE that stands for a failure of a connection that pg reports without a code, if `message` is one. */
export const pgConnectionSqlstate = (message: unknown): string | undefined =>
  typeof message === 'string' ? CODES.find(([matches]) => matches(message))?.[1] : undefined
