import { storeUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { isUnavailableError, tryStore } from '../src/index.js'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

describe('isUnavailableError', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    [
      'every address refused',
      Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: 'ECONNREFUSED' }),
    ],
    ['a reset connection', withCode('ECONNRESET')],
    ['an unknown host', withCode('ENOTFOUND')],
    ['a statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['an administrator shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['a connection exception', withCode('08006')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a connection timeout', new Error('Connection terminated due to connection timeout')],
    ['an exhausted pool', new Error('timeout exceeded when trying to connect')],
    ['a client-side query timeout', new Error('Query read timeout')],
    ['a cause that is one of these', new Error('wrapped', { cause: withCode('ETIMEDOUT') })],
  ])('is true for %s', (_, error) => expect(isUnavailableError(error)).toBe(true))

  it.each([
    ['a unique violation', withCode('23505')],
    ['a check violation', withCode('23514')],
    ['a missing table', withCode('42P01')],
    ['a syntax error', withCode('42601')],
    ['a TypeError', new TypeError('Cannot read properties of undefined')],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('is false for %s', (_, error) => expect(isUnavailableError(error)).toBe(false))
})

describe('tryStore', () => {
  it('answers right with the value, and left StoreUnavailable for an outage', async () => {
    expect(await tryStore(async () => 1)()).toEqual(E.right(1))
    const outage = withCode('ECONNREFUSED')
    expect(await tryStore(() => Promise.reject(outage))()).toEqual(E.left(storeUnavailable(outage)))
  })

  it('rethrows any other error', async () => {
    const bug = withCode('42601', 'syntax error at or near "SELEC"')
    await expect(tryStore(() => Promise.reject(bug))()).rejects.toBe(bug)
  })
})
