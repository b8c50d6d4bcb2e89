import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { IdempotencyKeyInUse, IdempotencyKeyReused, StoreUnavailable } from '../errors.js'
import { IDEMPOTENCY_WINDOW_MS, type CreatedOnce, type PetCreationRequest } from '../idempotency.js'
import { toPetData } from '../pet.js'
import type { Clock, IdempotentPetCreations } from '../ports.js'

export type CreatePetOnceDeps = { readonly creations: IdempotentPetCreations; readonly clock: Clock }

/**
 * Adds a pet at most once per API key and idempotency key within 24 hours: a repeat of the same
 * request gives the first one's pet again, another request under the same key is refused, and so
 * is a repeat while the first is still being performed.
 */
export const createPetOnce =
  ({ creations, clock }: CreatePetOnceDeps) =>
  ({
    pet,
    ...request
  }: PetCreationRequest): TE.TaskEither<
    StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused,
    CreatedOnce
  > => {
    const at = clock.now()
    return creations.addOnce({
      ...request,
      pet: toPetData(pet),
      at,
      expiredBefore: new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS),
    })
  }
