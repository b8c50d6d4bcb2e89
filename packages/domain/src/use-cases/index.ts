export {
  createPet,
  type CreatePetDeps,
  type CreatePetError,
  type CreatePetRequest,
  type IdempotencyUnsupported,
} from './create-pet.js'
export { forgetExpiredCreations, type ForgetExpiredCreationsDeps } from './forget-expired-creations.js'
export { getPet, GET_PET_SUNSET, type GetPetDeps } from './get-pet.js'
export { listPets, type ListPetsDeps, type PetPage } from './list-pets.js'
export { createUseCases, type UseCaseDeps, type UseCases } from './create-use-cases.js'
