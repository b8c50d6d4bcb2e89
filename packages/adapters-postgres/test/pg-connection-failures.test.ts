import { describe, expect, it } from 'vitest'
import { isUnavailableError } from '../src/index.js'
import { NO_TLS, pgConnectionSqlstate } from '../src/runner/pg-connection-failures.js'

describe("the code of pg's own failures of a connection, which carry none", () => {
  const messages = [
    NO_TLS,
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'timeout expired',
    'Connection terminated unexpectedly',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
    'Query read timeout',
  ]

  it('is the SQLSTATE of class 08 that stands for each', () => {
    expect(Object.fromEntries(messages.map((message) => [message, pgConnectionSqlstate(message)]))).toEqual({
      'The server does not support SSL connections': '08004',
      'Connection terminated due to connection timeout': '08001',
      'timeout exceeded when trying to connect': '08001',
      'timeout expired': '08001',
      'Connection terminated unexpectedly': '08006',
      'Client has encountered a connection error and is not queryable': '08006',
      'Client was closed and is not queryable': '08006',
      'Query read timeout': '08006',
    })
    expect(pgConnectionSqlstate('relation "pets" does not exist')).toBeUndefined()
    expect(pgConnectionSqlstate(undefined)).toBeUndefined()
  })

  it('makes each an outage of the store (503), but a server without the TLS sslmode asks for', () => {
    expect(messages.filter((message) => isUnavailableError(new Error(message)))).toEqual(messages.slice(1))
  })

  it("is no outage when the server said it, with a SQLSTATE of its own: pg's words quoted in a bug stay a bug", () => {
    const quoted = Object.assign(new Error('relation "connection timeout" does not exist'), { code: '42P01' })
    expect(isUnavailableError(quoted)).toBe(false)
  })
})
