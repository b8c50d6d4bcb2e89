import type { ApiKeyName } from '@pets/domain'
import { run, type EveryOptionUndefined } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import {
  createMemoryApiKeyStore,
  createMemoryStorage,
  type KnownApiKey,
  type MemoryApiKeyStoreOptions,
  type MemoryStorageOptions,
} from '../src/index.js'

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
