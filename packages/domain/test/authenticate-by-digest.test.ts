import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import {
  authenticatorByDigest,
  storeUnavailable,
  trustedKeysLookup,
  type ApiKeyOwner,
  type KeyLookup,
} from '../src/index.js'

const GIVEN: ApiKeyOwner = { keyId: 'env-ops', name: 'ops' }
const STORED: ApiKeyOwner = { keyId: '1', name: 'billing' }

// Digests as the test can read them; each one made is counted.
const digests: Array<string> = []
const digestOf = (key: string) => {
  digests.push(key)
  return `d(${key})`
}

// The keys a storage was given: always in memory.
const given: KeyLookup = {
  fromMemory: (d) => (d === 'd(given-key)' ? O.some(GIVEN) : O.none),
  lookUp: (d) => TE.right(d === 'd(given-key)' ? O.some(GIVEN) : O.none),
}

// A store that knows `stored-key`, counts its lookups, answers from memory while `inMemory`, and
// 503 while `down`.
const aStore = () => {
  const state = { lookups: 0, inMemory: false, down: false }
  const answer = (d: string) => (d === 'd(stored-key)' ? O.some(STORED) : O.none)
  const lookup: KeyLookup = {
    fromMemory: (d) => (state.inMemory ? answer(d) : undefined),
    lookUp: (d) => {
      state.lookups++
      return state.down ? TE.left(storeUnavailable()) : TE.right(answer(d))
    },
  }
  return { state, lookup }
}

describe('authenticatorByDigest', () => {
  it('answers from memory, the given keys first, and looks nothing up while the store serves from memory', async () => {
    const { state, lookup } = aStore()
    state.inMemory = true
    const auth = authenticatorByDigest(digestOf, [given, lookup])
    expect(auth.fromMemory?.('given-key')).toEqual(O.some(GIVEN))
    expect(auth.fromMemory?.('stored-key')).toEqual(O.some(STORED))
    expect(auth.fromMemory?.('nope')).toEqual(O.none)
    expect(await auth.authenticate('stored-key')()).toEqual(E.right(O.some(STORED)))
    expect(state.lookups).toBe(0)
  })

  it('hashes a key once, however often it is asked in a row', async () => {
    const auth = authenticatorByDigest(digestOf, [given, aStore().lookup])
    digests.length = 0
    auth.fromMemory?.('stored-key')
    await auth.authenticate('stored-key')()
    expect(digests).toEqual(['stored-key'])
  })

  it('cannot tell from memory while the store looks keys up, and then looks the key up once', async () => {
    const { state, lookup } = aStore()
    const auth = authenticatorByDigest(digestOf, [given, lookup])
    expect(auth.fromMemory?.('stored-key')).toBeUndefined()
    // A given key is known whatever the store does.
    expect(auth.fromMemory?.('given-key')).toEqual(O.some(GIVEN))
    expect(await auth.authenticate('stored-key')()).toEqual(E.right(O.some(STORED)))
    expect(state.lookups).toBe(1)
  })

  it('remembers a key a lookup found unknown for forMs: answered from memory, one query per period', async () => {
    let ms = 0
    const { state, lookup } = aStore()
    const auth = authenticatorByDigest(digestOf, [given, lookup], { forMs: 10_000, now: () => ms })
    for (let i = 0; i < 100; i++) expect(await auth.authenticate('revoked-key')()).toEqual(E.right(O.none))
    expect(state.lookups).toBe(1)
    expect(auth.fromMemory?.('revoked-key')).toEqual(O.none)
    ms += 10_000
    expect(auth.fromMemory?.('revoked-key')).toBeUndefined()
    await auth.authenticate('revoked-key')()
    expect(state.lookups).toBe(2)
  })

  it('remembers nothing of a known key, nor of an answer the store could not give', async () => {
    const { state, lookup } = aStore()
    const auth = authenticatorByDigest(digestOf, [lookup])
    expect(await auth.authenticate('stored-key')()).toEqual(E.right(O.some(STORED)))
    expect(await auth.authenticate('stored-key')()).toEqual(E.right(O.some(STORED)))
    state.down = true
    expect(E.isLeft(await auth.authenticate('other-key')())).toBe(true)
    state.down = false
    await auth.authenticate('other-key')()
    expect(state.lookups).toBe(4)
  })

  it('keeps at most maxKeys digests, forgetting the oldest', async () => {
    const { state, lookup } = aStore()
    const auth = authenticatorByDigest(digestOf, [lookup], { maxKeys: 10 })
    for (let i = 0; i < 100; i++) await auth.authenticate(`guess-${i}`)()
    const before = state.lookups
    await auth.authenticate('guess-99')()
    await auth.authenticate('guess-0')()
    expect(state.lookups - before).toBe(1)
  })
})

// The figures the root README and this package's README give: 10,000 by default; at it, the 1,001 first go.
describe('unknown keys remembered by default', () => {
  it('are 10,000 at most: at 10,000, the 1,001 remembered first are forgotten before the next', async () => {
    const { state, lookup } = aStore()
    const auth = authenticatorByDigest(digestOf, [lookup])
    for (let i = 0; i < 10_000; i++) await auth.authenticate(`guess-${i}`)()
    expect([auth.fromMemory?.('guess-0'), auth.fromMemory?.('guess-9999')]).toEqual([O.none, O.none])
    await auth.authenticate('one-more')()
    expect(state.lookups).toBe(10_001)
    const remembered = (i: number) => auth.fromMemory?.(`guess-${i}`) !== undefined
    expect([remembered(0), remembered(1000), remembered(1001), remembered(9999)]).toEqual([
      false,
      false,
      true,
      true,
    ])
  })
})

describe('trustedKeysLookup', () => {
  it('knows the trusted keys by digest, with their ids and names, from memory', async () => {
    const lookup = trustedKeysLookup([{ key: 'given-key', id: 'env-ops', name: 'ops' }], digestOf)
    expect(lookup.fromMemory('d(given-key)')).toEqual(O.some(GIVEN))
    expect(lookup.fromMemory('d(other)')).toEqual(O.none)
    expect(await lookup.lookUp('d(given-key)')()).toEqual(E.right(O.some(GIVEN)))
  })

  it.each([
    ['empty', ''],
    ['undefined', undefined],
  ])('refuses a key that is %s, naming its place', (what, key) => {
    const keys = [
      { key: 'given-key', id: 'env-ops', name: 'ops' },
      { key: key as unknown as string, id: 'env-2', name: 'two' },
    ]
    expect(() => trustedKeysLookup(keys, digestOf)).toThrow(
      new TypeError(`trustedKeys[1].key must be a non-empty string; it is ${what}`),
    )
  })
})
