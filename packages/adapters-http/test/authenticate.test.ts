import { storeUnavailable, type ApiKeyOwner, type Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Context } from 'koa'
import { describe, expect, it } from 'vitest'
import { authenticateKey, bearerKey } from '../src/authenticate.js'

// What the pets API does with a request's Authorization header.
const authenticateRequest = (authenticator: Authenticator, ctx: Context) =>
  authenticateKey(authenticator, bearerKey(ctx.get('Authorization') || undefined))

describe('bearerKey', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme %s in any case', (scheme) => {
    expect(bearerKey(`${scheme} k3y`)).toBe('k3y')
  })

  it('allows one or more spaces between the scheme and the key', () => {
    expect(bearerKey('Bearer k3y')).toBe('k3y')
    expect(bearerKey('Bearer     k3y')).toBe('k3y')
  })

  it('returns the key verbatim, keeping its case and its characters', () => {
    expect(bearerKey('Bearer AbC-dEf_123.~+/=')).toBe('AbC-dEf_123.~+/=')
    expect(bearerKey('bearer ABC')).not.toBe(bearerKey('bearer abc'))
  })

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Bearer    '])('finds no key in %j', (header) => {
    expect(bearerKey(header)).toBeUndefined()
  })

  it.each([
    'Basic dXNlcjpwYXNz',
    'Token k3y',
    'Bearerk3y',
    'k3y',
    'Bearer\tk3y',
    ' Bearer k3y',
    'X-Bearer k3y',
  ])('finds no key in a header of another scheme or shape: %j', (header) => {
    expect(bearerKey(header)).toBeUndefined()
  })
})

describe('authenticateRequest', () => {
  const owner: ApiKeyOwner = { keyId: '1', name: 'billing' }
  const knowing = (key: string): Authenticator => ({
    authenticate: (apiKey) => TE.right(apiKey === key ? O.some(owner) : O.none),
  })
  const withAuthorization = (header: string) =>
    ({ get: (name: string) => (name === 'Authorization' ? header : '') }) as Context

  it('answers the owner of a known key', async () => {
    expect(await authenticateRequest(knowing('k3y'), withAuthorization('Bearer k3y'))).toEqual(E.right(owner))
  })

  it('is Unauthorized without keySent when no bearer key came', async () => {
    for (const header of ['', 'Basic k3y', 'Bearer '])
      expect(await authenticateRequest(knowing('k3y'), withAuthorization(header))).toEqual(
        E.left({ _tag: 'Unauthorized', keySent: false }),
      )
  })

  it('is Unauthorized with keySent when the key is unknown, also when it differs only in case', async () => {
    for (const header of ['Bearer nope', 'Bearer K3Y'])
      expect(await authenticateRequest(knowing('k3y'), withAuthorization(header))).toEqual(
        E.left({ _tag: 'Unauthorized', keySent: true }),
      )
  })

  it('passes StoreUnavailable through when the key store is down', async () => {
    const down: Authenticator = { authenticate: () => TE.left(storeUnavailable()) }
    expect(await authenticateRequest(down, withAuthorization('Bearer k3y'))).toEqual(
      E.left({ _tag: 'StoreUnavailable' }),
    )
  })
})
