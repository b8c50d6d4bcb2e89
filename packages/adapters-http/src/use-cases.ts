import type { createPet, createPetOnce, getPet, listPets } from '@pets/domain'

/** The use cases the HTTP adapter serves, already given their dependencies. */
export type PetsUseCases = {
  readonly listPets: ReturnType<typeof listPets>
  readonly createPet: ReturnType<typeof createPet>
  /** Serves POST requests with an Idempotency-Key; without it, such a request gets 501. */
  readonly createPetOnce?: ReturnType<typeof createPetOnce>
  readonly getPet: ReturnType<typeof getPet>
}
