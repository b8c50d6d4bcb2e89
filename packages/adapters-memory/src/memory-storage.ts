import { authenticatorByDigest, trustedKeysLookup, type Storage, type TrustedApiKey } from '@pets/domain'
import { apiKeyDigest } from '@pets/wire/api-key-secret'
import { createMemoryApiKeyStore } from './memory-api-key-store.js'
import { createMemoryApiKeyUsageLog } from './memory-api-key-usage-log.js'
import { createMemoryIdempotentPetCreations } from './memory-idempotent-pet-creations.js'
import { createMemoryPetRepository } from './memory-pet-repository.js'
import { createMemoryStoreHealth } from './memory-store-health.js'

/** How to set up the storage in memory; every field is optional. */
export type MemoryStorageOptions = {
  /** Prefix of the ids of keys issued here, to tell them apart from another store's. */
  readonly keyIdPrefix?: string | undefined
  /** Keys its authenticator trusts beside those it issues, such as those of API_KEYS. */
  readonly trustedKeys?: ReadonlyArray<TrustedApiKey> | undefined
}

/** The whole storage in this process's memory: fast, needs nothing, and gone when the process ends. */
export const createMemoryStorage = (options: MemoryStorageOptions = {}): Storage => {
  const pets = createMemoryPetRepository()
  const apiKeys = createMemoryApiKeyStore(
    options.keyIdPrefix === undefined ? {} : { idPrefix: options.keyIdPrefix },
  )
  return {
    pets,
    apiKeys,
    authenticator: authenticatorByDigest(apiKeyDigest, [
      trustedKeysLookup(options.trustedKeys ?? [], apiKeyDigest),
      apiKeys.byDigest,
    ]),
    usageLog: createMemoryApiKeyUsageLog(),
    creations: createMemoryIdempotentPetCreations(pets),
    health: createMemoryStoreHealth(),
    start: async () => {},
    close: async () => {},
  }
}
