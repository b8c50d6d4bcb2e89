import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type ApiKeyId,
  type IdempotentPetCreations,
  type PetRepository,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { createIdempotencyRecords } from './idempotency-records.js'

// An idempotency key is printable ASCII, so the first line break ends it.
const scopeOf = (owner: ApiKeyId, key: string) => `${key}\n${owner}`

/**
 * Idempotent additions in this process's memory, through `pets`; a record is kept once its pet is added.
 * A record keeps the pet's id, not the pet: a repeat reads the pet again from `pets`.
 */
export const createMemoryIdempotentPetCreations = (pets: PetRepository): IdempotentPetCreations => {
  const records = createIdempotencyRecords()
  const running = new Set<string>()
  return {
    addOnce: (creation) => async () => {
      const scope = scopeOf(creation.owner, creation.key)
      if (running.has(scope)) return E.left(idempotencyKeyInUse())
      const row = records.find(creation.owner, creation.key)
      if (row !== undefined && records.atOf(row) >= creation.expiredBefore.getTime()) {
        if (!records.sameFingerprint(row, creation.fingerprint)) return E.left(idempotencyKeyReused())
        const found = await pets.findById(records.petIdOf(row))()
        if (E.isLeft(found)) return found
        // A pet that is gone (no repository of this package removes one) leaves its record nothing to answer.
        if (O.isSome(found.right)) return E.right(found.right.value)
      }
      running.add(scope)
      try {
        const added = await pets.add(creation.pet)()
        if (E.isLeft(added)) return added
        records.add(creation.owner, creation.key, creation.fingerprint, added.right.id, creation.at.getTime())
        return added
      } finally {
        running.delete(scope)
      }
    },
    removeExpired: (before) => TE.fromIO(() => records.removeBefore(before.getTime())),
  }
}
