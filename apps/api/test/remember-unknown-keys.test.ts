import { storeUnavailable, type ApiKeyOwner, type Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { rememberUnknownKeys } from '../src/remember-unknown-keys.js'

const OWNER: ApiKeyOwner = { keyId: '1', name: 'billing' }

// A store that knows one key and counts its lookups; `down` makes it answer 503.
const aStore = () => {
  const state = { lookups: 0, down: false }
  const authenticator: Authenticator = {
    authenticate: (key) => {
      state.lookups++
      if (state.down) return TE.left(storeUnavailable())
      return TE.right(key === 'good-key' ? O.some(OWNER) : O.none)
    },
  }
  return { state, authenticator }
}

describe('rememberUnknownKeys: unknown keys while the store looks keys up', () => {
  it('asks the store once per key and period for a key it does not know', async () => {
    let ms = 0
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, {
      lookingUp: () => true,
      forMs: 10_000,
      now: () => ms,
    })
    for (let i = 0; i < 100; i++)
      expect(await remembering.authenticate('revoked-key')()).toEqual(E.right(O.none))
    expect(state.lookups).toBe(1)
    ms += 10_000
    await remembering.authenticate('revoked-key')()
    expect(state.lookups).toBe(2)
  })

  it('always asks for a known key, and remembers no answer the store could not give', async () => {
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, { lookingUp: () => true })
    expect(await remembering.authenticate('good-key')()).toEqual(E.right(O.some(OWNER)))
    expect(await remembering.authenticate('good-key')()).toEqual(E.right(O.some(OWNER)))
    state.down = true
    expect(E.isLeft(await remembering.authenticate('other-key')())).toBe(true)
    state.down = false
    await remembering.authenticate('other-key')()
    expect(state.lookups).toBe(4)
  })

  it('does nothing while the store checks keys in memory', async () => {
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, { lookingUp: () => false })
    for (let i = 0; i < 3; i++) await remembering.authenticate('revoked-key')()
    expect(state.lookups).toBe(3)
  })

  it('keeps at most maxKeys digests, forgetting the oldest', async () => {
    const { state, authenticator } = aStore()
    const remembering = rememberUnknownKeys(authenticator, { lookingUp: () => true, maxKeys: 10 })
    for (let i = 0; i < 100; i++) await remembering.authenticate(`guess-${i}`)()
    const before = state.lookups
    await remembering.authenticate('guess-99')()
    await remembering.authenticate('guess-0')()
    expect(state.lookups - before).toBe(1)
  })
})
