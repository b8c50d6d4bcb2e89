import type { ApiKeyName } from '@pets/domain'
import { run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import {
  createMemoryApiKeyStore,
  createMemoryStorage,
  type KnownApiKey,
  type MemoryApiKeyStoreOptions,
  type MemoryStorageOptions,
} from '../src/index.js'

// Every optional property of T, each given as undefined: a new option must be listed here (the object is
// typed with all of them), and one declared without `| undefined` fails the type check under
// exactOptionalPropertyTypes, as an embedder passing on a value of its own configuration would.
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]
type EveryOptionUndefined<T> = { readonly [K in OptionalKeys<T>]-?: undefined }

describe('an option given as undefined is its default, as one left out is', () => {
  it('createMemoryApiKeyStore: no keys, ids without a prefix, dated by the system clock', async () => {
    const options: EveryOptionUndefined<MemoryApiKeyStoreOptions> = {
      keys: undefined,
      idPrefix: undefined,
      now: undefined,
    }
    const store = createMemoryApiKeyStore(options)
    expect(await run(store.list())).toEqual([])
    const before = Date.now()
    const issued = await run(store.issue('billing' as ApiKeyName))
    expect(issued.record.id).toBe('1')
    expect(issued.record.createdAt.getTime()).toBeGreaterThanOrEqual(before)
  })

  it('a known key without an id (given as undefined) has one of the store', async () => {
    const known: KnownApiKey & EveryOptionUndefined<KnownApiKey> = { key: 'k1', name: 'first', id: undefined }
    const store = createMemoryApiKeyStore({ keys: [known], idPrefix: 'env-' })
    expect(await run(store.authenticate('k1'))).toEqual(O.some({ keyId: 'env-1', name: 'first' }))
  })

  it('createMemoryStorage: ids without a prefix, no trusted keys', async () => {
    const options: EveryOptionUndefined<MemoryStorageOptions> = {
      keyIdPrefix: undefined,
      trustedKeys: undefined,
    }
    const storage = createMemoryStorage(options)
    const issued = await run(storage.apiKeys.issue('billing' as ApiKeyName))
    expect(issued.record.id).toBe('1')
    expect(storage.authenticator.fromMemory?.('given-key')).toEqual(O.none)
  })
})
