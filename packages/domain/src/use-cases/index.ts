export { createPet, type CreatePetDeps } from './create-pet.js'
export { getPet, GET_PET_SUNSET, type GetPetDeps } from './get-pet.js'
export { listPets, type ListPetsDeps, type PetPage } from './list-pets.js'
