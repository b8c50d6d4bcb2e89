import { storeUnavailable, type ApiKeyOwner, type Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { rememberUnknownKeys } from '../src/remember-unknown-keys.js'

const OWNER: ApiKeyOwner = { keyId: '1', name: 'billing' }

// A store that knows one key and counts its lookups; `down` makes it answer 503. With `inMemory`,
// it answers from memory too (as the PostgreSQL store does while its index serves).
const aStore = () => {
  const state = { lookups: 0, down: false, inMemory: false }
  const answer = (key: string) => (key === 'good-key' ? O.some(OWNER) : O.none)
  const authenticator: Authenticator = {
    authenticate: (key) => {
      state.lookups++
      if (state.down) return TE.left(storeUnavailable())
      return TE.right(answer(key))
    },
    fromMemory: (key) => (state.inMemory ? answer(key) : undefined),
  }
  return { state, authenticator }
}

describe('rememberUnknownKeys: unknown keys while the store looks keys up', () => {
  it('asks the store once per key and period for a key it does not know', async () => {
    let ms = 0
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, { forMs: 10_000, now: () => ms })
    expect(remembering.fromMemory?.('revoked-key')).toBeUndefined()
    for (let i = 0; i < 100; i++)
      expect(await remembering.authenticate('revoked-key')()).toEqual(E.right(O.none))
    expect(state.lookups).toBe(1)
    // Remembered: answered from memory, so that a caller limits none of its retries.
    expect(remembering.fromMemory?.('revoked-key')).toEqual(O.none)
    ms += 10_000
    expect(remembering.fromMemory?.('revoked-key')).toBeUndefined()
    await remembering.authenticate('revoked-key')()
    expect(state.lookups).toBe(2)
  })

  it('always asks for a known key, and remembers no answer the store could not give', async () => {
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator)
    expect(await remembering.authenticate('good-key')()).toEqual(E.right(O.some(OWNER)))
    expect(await remembering.authenticate('good-key')()).toEqual(E.right(O.some(OWNER)))
    state.down = true
    expect(E.isLeft(await remembering.authenticate('other-key')())).toBe(true)
    state.down = false
    await remembering.authenticate('other-key')()
    expect(state.lookups).toBe(4)
  })

  it('leaves to the store what it answers from memory: no lookup, nothing remembered', async () => {
    const { state, authenticator } = aStore()
    state.inMemory = true
    const remembering = rememberUnknownKeys(authenticator)
    for (let i = 0; i < 3; i++)
      expect(await remembering.authenticate('revoked-key')()).toEqual(E.right(O.none))
    expect(await remembering.authenticate('good-key')()).toEqual(E.right(O.some(OWNER)))
    expect(remembering.fromMemory?.('good-key')).toEqual(O.some(OWNER))
    expect(state.lookups).toBe(0)
    // Once the store looks keys up again, the key was never remembered: it is looked up.
    state.inMemory = false
    expect(remembering.fromMemory?.('revoked-key')).toBeUndefined()
    await remembering.authenticate('revoked-key')()
    expect(state.lookups).toBe(1)
  })

  it('keeps at most maxKeys digests, forgetting the oldest', async () => {
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, { maxKeys: 10 })
    for (let i = 0; i < 100; i++) await remembering.authenticate(`guess-${i}`)()
    const before = state.lookups
    await remembering.authenticate('guess-99')()
    await remembering.authenticate('guess-0')()
    expect(state.lookups - before).toBe(1)
  })
})
