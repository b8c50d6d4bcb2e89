import type { ApiKeyName } from '@pets/domain'
import { describeApiKeyStoreContract, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import { createMemoryApiKeyStore } from '../src/index.js'

describeApiKeyStoreContract('memory', async () => ({
  store: createMemoryApiKeyStore(),
  close: async () => {},
}))

describe('memory API-key store', () => {
  it('trusts the keys it is given, under ids with its prefix', async () => {
    const store = createMemoryApiKeyStore({
      keys: [
        { key: 'k1', name: 'first' },
        { key: 'k2', name: 'second' },
      ],
      idPrefix: 'env-',
    })
    expect(await run(store.authenticate('k1'))).toEqual(O.some({ keyId: 'env-1', name: 'first' }))
    expect(await run(store.authenticate('k2'))).toEqual(O.some({ keyId: 'env-2', name: 'second' }))
    expect(await run(store.authenticate('k3'))).toEqual(O.none)
  })

  it('answers every key from memory, so that a caller never limits its answers', async () => {
    const store = createMemoryApiKeyStore({ keys: [{ key: 'k1', name: 'first' }], idPrefix: 'env-' })
    expect(store.fromMemory?.('k1')).toEqual(O.some({ keyId: 'env-1', name: 'first' }))
    expect(store.fromMemory?.('k2')).toEqual(O.none)
    // A use answered from memory is a use: it dates the key as authenticate does.
    expect((await run(store.list()))[0]?.lastUsedAt).toBeInstanceOf(Date)
  })

  it('keeps no key in plain text, only its SHA-256 digest', async () => {
    const store = createMemoryApiKeyStore({ keys: [{ key: 'plain-secret-key', name: 'a' }] })
    const issued = await run(store.issue('b' as ApiKeyName))
    // Whatever the store holds is reachable from its closures; a heap-free check is to look at
    // everything it can show (the digest it is keyed by is tested in @pets/wire).
    const shown = JSON.stringify(await run(store.list()))
    expect(shown).not.toContain('plain-secret-key')
    expect(shown).not.toContain(issued.key)
  })
})
