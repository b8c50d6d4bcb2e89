import { storeUnavailable, type ApiKeyOwner, type Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Context } from 'koa'
import { describe, expect, it } from 'vitest'
import { authenticateKey, bearerKey, tabAfterBearer } from '../src/authenticate.js'
import { createTokenBucketRateLimiter } from '../src/rate-limiter.js'

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

describe('tabAfterBearer', () => {
  it.each(['Bearer\tk3y', 'bearer \t k3y', 'BEARER\t\tk3y'])('finds a tab before the key in %j', (header) => {
    expect(tabAfterBearer(header)).toBe(true)
  })

  it.each([
    'Bearer k3y',
    'Bearer  k3y',
    'Bearer\t',
    'Bearer \t',
    'Basic\tk3y',
    'Bearerk3y\tx',
    'Bearer k3y\tx',
  ])(
    'finds none in %j: spaces alone, no key after the tab, another scheme, a tab within the key',
    (header) => {
      expect(tabAfterBearer(header)).toBe(false)
    },
  )
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

describe('authenticateKey with a limit on failed lookups per address', () => {
  const owner: ApiKeyOwner = { keyId: '1', name: 'billing' }
  // A store that knows `k3y`, counts its lookups, and answers from memory while `inMemory`.
  const aStore = () => {
    const state = { lookups: 0, inMemory: false, down: false }
    const answer = (apiKey: string) => (apiKey === 'k3y' ? O.some(owner) : O.none)
    const authenticator: Authenticator = {
      authenticate: (apiKey) => {
        state.lookups++
        return state.down ? TE.left(storeUnavailable()) : TE.right(answer(apiKey))
      },
      fromMemory: (apiKey) => (state.inMemory ? answer(apiKey) : undefined),
    }
    return { state, authenticator }
  }
  const aLimit = (burst: number) => ({
    failures: createTokenBucketRateLimiter({ perSecond: 1, burst, now: () => 0 }),
    addressOf: () => '198.51.100.7',
  })

  it('answers keys known in memory at once, 200 or 401, however many failures came before', async () => {
    const { state, authenticator } = aStore()
    state.inMemory = true
    const limit = aLimit(1)
    for (let i = 0; i < 50; i++)
      expect(await authenticateKey(authenticator, `guess-${i}`, limit)).toEqual(
        E.left({ _tag: 'Unauthorized', keySent: true }),
      )
    expect(await authenticateKey(authenticator, 'k3y', limit)).toEqual(E.right(owner))
    expect(state.lookups).toBe(0)
    // Nothing was spent: the address may still look one key up.
    expect(limit.failures.take('198.51.100.7').allowed).toBe(true)
  })

  it('limits lookups: failures spend the address its tokens, then 429 before any lookup, for a valid key too', async () => {
    const { state, authenticator } = aStore()
    const limit = aLimit(2)
    expect(E.isLeft(await authenticateKey(authenticator, 'guess-1', limit))).toBe(true)
    expect(E.isLeft(await authenticateKey(authenticator, 'guess-2', limit))).toBe(true)
    expect(state.lookups).toBe(2)
    for (const key of ['guess-3', 'k3y'])
      expect(await authenticateKey(authenticator, key, limit)).toEqual(
        E.left({ _tag: 'RateLimited', retryAfterSeconds: 1, by: 'address' }),
      )
    expect(state.lookups).toBe(2)
  })

  it('gives the token back for a valid key and for an answer the store could not give', async () => {
    const { state, authenticator } = aStore()
    const limit = aLimit(1)
    for (let i = 0; i < 3; i++)
      expect(await authenticateKey(authenticator, 'k3y', limit)).toEqual(E.right(owner))
    state.down = true
    for (let i = 0; i < 3; i++)
      expect(await authenticateKey(authenticator, 'k3y', limit)).toEqual(E.left({ _tag: 'StoreUnavailable' }))
    expect(state.lookups).toBe(6)
  })

  it('asks for the address only when a lookup is due', async () => {
    const { state, authenticator } = aStore()
    state.inMemory = true
    let asked = 0
    const limit = { ...aLimit(1), addressOf: () => (asked++, '198.51.100.7') }
    await authenticateKey(authenticator, 'k3y', limit)
    await authenticateKey(authenticator, undefined, limit)
    expect(asked).toBe(0)
  })
})

describe('authenticateKey given the memory answer already asked', () => {
  it('takes it instead of asking the memory again: a key is digested once a request', async () => {
    const owner: ApiKeyOwner = { keyId: 'env-1', name: 'one' }
    let asked = 0
    const authenticator: Authenticator = {
      authenticate: () => TE.right(O.none),
      fromMemory: () => (asked++, O.none),
    }
    expect(await authenticateKey(authenticator, 'k3y', undefined, undefined, O.some(owner))).toEqual(
      E.right(owner),
    )
    expect(asked).toBe(0)
    expect(await authenticateKey(authenticator, 'k3y')).toEqual(
      E.left({ _tag: 'Unauthorized', keySent: true }),
    )
    expect(asked).toBe(1)
  })
})
