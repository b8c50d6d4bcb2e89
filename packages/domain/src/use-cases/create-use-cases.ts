import type { Clock, Storage } from '../ports.js'
import { createPet } from './create-pet.js'
import { forgetExpiredCreations } from './forget-expired-creations.js'
import { getPet } from './get-pet.js'
import { listPets } from './list-pets.js'

/** What the use cases need: a storage (any adapter's) and a clock. */
export type UseCaseDeps = {
  readonly storage: Pick<Storage, 'pets' | 'creations'>
  readonly clock: Clock
}

/** Every use case, given its dependencies once: the one place where they are wired. */
export const createUseCases = ({ storage, clock }: UseCaseDeps) => ({
  listPets: listPets({ pets: storage.pets }),
  createPet: createPet({ pets: storage.pets, creations: storage.creations, clock }),
  getPet: getPet({ pets: storage.pets, clock }),
  forgetExpiredCreations: forgetExpiredCreations({ creations: storage.creations, clock }),
})

/** The use cases of a storage and a clock. */
export type UseCases = ReturnType<typeof createUseCases>
