import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type ApiKeyId,
  type IdempotentPetCreations,
  type Pet,
  type PetRepository,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'

type Entry = { readonly fingerprint: string; readonly pet: Pet; readonly at: Date }

// An idempotency key is printable ASCII, so the first line break ends it.
const scopeOf = (owner: ApiKeyId, key: string) => `${key}\n${owner}`

/** Idempotent additions in this process's memory, through `pets`; a record is kept once its pet is added. */
export const createMemoryIdempotentPetCreations = (pets: PetRepository): IdempotentPetCreations => {
  const records = new Map<string, Entry>()
  const running = new Set<string>()
  return {
    addOnce: (creation) => async () => {
      const scope = scopeOf(creation.owner, creation.key)
      if (running.has(scope)) return E.left(idempotencyKeyInUse())
      const found = records.get(scope)
      if (found !== undefined && found.at >= creation.expiredBefore)
        return found.fingerprint === creation.fingerprint
          ? E.right(found.pet)
          : E.left(idempotencyKeyReused())
      running.add(scope)
      try {
        const added = await pets.add(creation.pet)()
        if (E.isLeft(added)) return added
        records.set(scope, { fingerprint: creation.fingerprint, pet: added.right, at: creation.at })
        return added
      } finally {
        running.delete(scope)
      }
    },
    removeExpired: (before) =>
      TE.fromIO(() => {
        let removed = 0
        for (const [scope, entry] of records)
          if (entry.at < before) {
            records.delete(scope)
            removed++
          }
        return removed
      }),
  }
}
