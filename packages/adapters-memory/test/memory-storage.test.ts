import type { ApiKeyName } from '@pets/domain'
import { describeStorageContract, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../src/index.js'

describeStorageContract('memory', async () => createMemoryStorage())

describe("the memory storage's authenticator", () => {
  it('trusts the keys it was given beside those it issues, each from memory', async () => {
    const storage = createMemoryStorage({ trustedKeys: [{ key: 'given-key', id: 'env-ops', name: 'ops' }] })
    const issued = await run(storage.apiKeys.issue('billing' as ApiKeyName))
    expect(storage.authenticator.fromMemory?.('given-key')).toEqual(O.some({ keyId: 'env-ops', name: 'ops' }))
    expect(storage.authenticator.fromMemory?.(issued.key)).toEqual(
      O.some({ keyId: issued.record.id, name: 'billing' }),
    )
    expect(storage.authenticator.fromMemory?.('nope')).toEqual(O.none)
    expect(await run(storage.authenticator.authenticate('given-key'))).toEqual(
      O.some({ keyId: 'env-ops', name: 'ops' }),
    )
  })
})
