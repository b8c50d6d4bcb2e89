import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../errors.js'
import { toPetData, type NewPet, type Pet } from '../pet.js'
import type { PetRepository } from '../ports.js'

/** What createPet needs. */
export type CreatePetDeps = { readonly pets: PetRepository }

/** Adds a pet to the catalogue; the store assigns its id. */
export const createPet =
  ({ pets }: CreatePetDeps) =>
  (pet: NewPet): TE.TaskEither<StoreUnavailable, Pet> =>
    pets.add(toPetData(pet))
