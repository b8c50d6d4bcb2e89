import type { createPet, getPet, listPets } from '@pets/domain'

/** The use cases the HTTP adapter serves, already given their dependencies. */
export type PetsUseCases = {
  readonly listPets: ReturnType<typeof listPets>
  /** Serves every POST; built without a creations store (`createPet({ pets })`), answers keyed ones 501. */
  readonly createPet: ReturnType<typeof createPet>
  readonly getPet: ReturnType<typeof getPet>
}
