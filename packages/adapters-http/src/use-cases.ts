import type { createPet, getPet, listPets } from '@pets/domain'

/** The use cases the HTTP adapter serves, already given their dependencies. */
export type PetsUseCases = {
  readonly listPets: ReturnType<typeof listPets>
  readonly createPet: ReturnType<typeof createPet>
  readonly getPet: ReturnType<typeof getPet>
}
