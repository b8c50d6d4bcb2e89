export {
  createMemoryApiKeyStore,
  generateApiKey,
  type KnownApiKey,
  type MemoryApiKeyStoreOptions,
} from './memory-api-key-store.js'
export { createMemoryPetRepository } from './memory-pet-repository.js'
export { sha256Hex } from './sha256.js'
export { createSystemClock } from './system-clock.js'
