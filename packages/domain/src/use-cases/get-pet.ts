import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { gone, petNotFound, type Gone, type PetNotFound, type StoreUnavailable } from '../errors.js'
import type { Pet, PetId } from '../pet.js'
import type { Clock, PetRepository } from '../ports.js'

/** CONTRACT: getPet is deprecated and removed on 5 December 2030; from then on it is Gone. */
export const GET_PET_SUNSET = new Date('2030-12-05T00:00:00Z')

/** What getPet needs: the clock decides when the sunset has come. */
export type GetPetDeps = { readonly pets: PetRepository; readonly clock: Clock }

/** Finds one pet by id. Deprecated for listing by status; from the sunset on, `Gone` for every id. */
export const getPet =
  ({ pets, clock }: GetPetDeps) =>
  (id: PetId): TE.TaskEither<Gone | PetNotFound | StoreUnavailable, Pet> =>
    clock.now().getTime() >= GET_PET_SUNSET.getTime()
      ? TE.left(gone('getPet', GET_PET_SUNSET))
      : pipe(pets.findById(id), TE.flatMap(TE.fromOption(() => petNotFound(id))))
