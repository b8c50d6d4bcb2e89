export { describeApiKeyUsageLogContract, type OpenApiKeyUsageLog } from './api-key-usage-log.contract.js'
export { describeApiKeyStoreContract, type OpenApiKeyStore } from './api-key-store.contract.js'
export { aClock, aNewPet, aPetData, run, runLeft } from './builders.js'
export {
  aCreation,
  describeIdempotentPetCreationsContract,
  type OpenIdempotentPetCreations,
} from './idempotent-pet-creations.contract.js'
export type { EveryOptionUndefined, OptionalKeys } from './every-option-undefined.js'
export { pollUntil } from './poll-until.js'
export { describePetRepositoryContract, type OpenPetRepository } from './pet-repository.contract.js'
export { describeStorageContract, type OpenStorage } from './storage.contract.js'
