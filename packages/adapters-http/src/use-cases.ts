import type { createPet, getPet, listPets } from '@pets/domain'

/** The use cases the HTTP adapter serves, already given their dependencies. */
export type PetsUseCases = {
  readonly listPets: ReturnType<typeof listPets>
  /**
   * Serves every POST, those with an Idempotency-Key too: built without the store of such
   * requests (`createPet({ pets })`), it answers them 501.
   */
  readonly createPet: ReturnType<typeof createPet>
  readonly getPet: ReturnType<typeof getPet>
}
