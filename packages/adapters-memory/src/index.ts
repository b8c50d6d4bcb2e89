export {
  createMemoryApiKeyStore,
  type KnownApiKey,
  type MemoryApiKeyStore,
  type MemoryApiKeyStoreOptions,
} from './memory-api-key-store.js'
export { createMemoryApiKeyUsageLog } from './memory-api-key-usage-log.js'
export { createMemoryIdempotentPetCreations } from './memory-idempotent-pet-creations.js'
export { createMemoryPetRepository } from './memory-pet-repository.js'
export { createMemoryStoreHealth } from './memory-store-health.js'
export { createSystemClock } from './system-clock.js'
export { createMemoryStorage, type MemoryStorageOptions } from './memory-storage.js'
