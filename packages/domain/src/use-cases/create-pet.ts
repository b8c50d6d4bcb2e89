import * as TE from 'fp-ts/lib/TaskEither.js'
import type { IdempotencyKeyInUse, IdempotencyKeyReused, StoreUnavailable } from '../errors.js'
import { IDEMPOTENCY_WINDOW_MS, type PetCreationRequest } from '../idempotency.js'
import { toPetData, type NewPet, type Pet } from '../pet.js'
import type { Clock, IdempotentPetCreations, PetRepository } from '../ports.js'

/**
 * A request to add a pet. With `once` (the idempotency key, whose API key sent it, and the
 * request's fingerprint) it is performed at most once per key within 24 hours.
 */
export type CreatePetRequest = {
  readonly pet: NewPet
  readonly once?: Omit<PetCreationRequest, 'pet'>
}

/** A request with an idempotency key, to a host whose store keeps no record of such requests. */
export type IdempotencyUnsupported = { readonly _tag: 'IdempotencyUnsupported' }

/**
 * What createPet needs: the pets, and, to serve requests with an idempotency key, the store of
 * such requests and the clock that dates them.
 */
export type CreatePetDeps =
  | { readonly pets: PetRepository; readonly creations?: undefined }
  | { readonly pets: PetRepository; readonly creations: IdempotentPetCreations; readonly clock: Clock }

/** Every way createPet can fail. */
export type CreatePetError =
  StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused | IdempotencyUnsupported

const UNSUPPORTED: IdempotencyUnsupported = { _tag: 'IdempotencyUnsupported' }

/**
 * Adds a pet to the catalogue; the store assigns its id. With an idempotency key, a repeat of the
 * same request gives the first one's pet again, another request under the same key is refused
 * (IdempotencyKeyReused), and so is a repeat while the first is still being performed
 * (IdempotencyKeyInUse).
 */
export const createPet =
  (deps: CreatePetDeps) =>
  ({ pet, once }: CreatePetRequest): TE.TaskEither<CreatePetError, Pet> => {
    if (once === undefined) return deps.pets.add(toPetData(pet))
    if (deps.creations === undefined) return TE.left(UNSUPPORTED)
    const at = deps.clock.now()
    return deps.creations.addOnce({
      ...once,
      pet: toPetData(pet),
      at,
      expiredBefore: new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS),
    })
  }
