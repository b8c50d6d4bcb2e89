import * as TE from 'fp-ts/lib/TaskEither.js'
import type { IdempotencyKeyInUse, IdempotencyKeyReused, StoreUnavailable } from '../errors.js'
import { IDEMPOTENCY_WINDOW_MS, type PetCreationRequest } from '../idempotency.js'
import { toPetData, type NewPet, type Pet } from '../pet.js'
import type { Clock, IdempotentPetCreations, PetRepository } from '../ports.js'

/** A request to add a pet; with `once`, it is performed at most once per key within 24 hours. */
export type CreatePetRequest = {
  readonly pet: NewPet
  readonly once?: Omit<PetCreationRequest, 'pet'>
}

/** A request with an idempotency key, to a host whose store keeps no record of such requests. */
export type IdempotencyUnsupported = { readonly _tag: 'IdempotencyUnsupported' }

/** What createPet needs; `creations` and `clock` only to serve requests with an idempotency key. */
export type CreatePetDeps =
  | { readonly pets: PetRepository; readonly creations?: undefined }
  | { readonly pets: PetRepository; readonly creations: IdempotentPetCreations; readonly clock: Clock }

/** Every way createPet can fail. */
export type CreatePetError =
  StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused | IdempotencyUnsupported

const UNSUPPORTED: IdempotencyUnsupported = { _tag: 'IdempotencyUnsupported' }

/** Adds a pet (the store assigns its id); with an idempotency key, a repeat gives the first pet again. */
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
