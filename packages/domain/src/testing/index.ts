export { describeApiKeyStoreContract, type OpenApiKeyStore } from './api-key-store.contract.js'
export { aClock, aNewPet, aPetData, run, runLeft } from './builders.js'
export { describePetRepositoryContract, type OpenPetRepository } from './pet-repository.contract.js'
