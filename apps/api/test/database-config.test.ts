import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

const URL = 'postgres://postgres@127.0.0.1:5432/animals'
const storage = (env: Record<string, string>) => {
  const result = loadConfig({ DATABASE_URL: URL, ...env })
  if (E.isLeft(result)) throw new Error(result.left.join('; '))
  if (result.right.storage.kind !== 'postgres') throw new Error('expected PostgreSQL')
  return result.right.storage
}
const problems = (env: Record<string, string>) => {
  const result = loadConfig({ DATABASE_URL: URL, ...env })
  return E.isLeft(result) ? result.left : []
}

describe('the timeouts of PostgreSQL in the configuration', () => {
  it('defaults to a 503 within about 2 s: 1 s for a connection, 0.75 s per statement', () => {
    expect(storage({})).toMatchObject({
      connectionTimeoutMs: 1000,
      statementTimeoutMs: 750,
      lockTimeoutMs: 500,
      idleInTransactionTimeoutMs: 2000,
    })
  })

  it('reads each from its variable; 0 means no limit for the lock and idle-in-transaction timeouts', () => {
    expect(
      storage({
        DATABASE_CONNECT_TIMEOUT_MS: '300',
        DATABASE_STATEMENT_TIMEOUT_MS: '400',
        DATABASE_LOCK_TIMEOUT_MS: '0',
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0',
      }),
    ).toMatchObject({
      connectionTimeoutMs: 300,
      statementTimeoutMs: 400,
      lockTimeoutMs: 0,
      idleInTransactionTimeoutMs: 0,
    })
  })

  it('names each bad variable', () => {
    expect(
      problems({ DATABASE_LOCK_TIMEOUT_MS: 'soon', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '-1' }),
    ).toEqual([
      'DATABASE_LOCK_TIMEOUT_MS must be an integer from 0 to 600000',
      'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS must be an integer from 0 to 600000',
    ])
  })

  it("dates Idempotency-Key records by the database's clock, unless CLOCK_NOW moved the service's", () => {
    expect(storage({}).idempotencyClock).toBe('database')
    expect(storage({ CLOCK_NOW: '2030-12-05T00:00:00Z' }).idempotencyClock).toBe('service')
  })
})
