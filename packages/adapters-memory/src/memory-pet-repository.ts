import type { PageCursor, Pet, PetId, PetListing, PetRepository } from '@pets/domain'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'

/** A pet repository in the process's memory: fast, and gone when the process ends. */
export const createMemoryPetRepository = (): PetRepository => {
  // Stays in id order because ids only grow, so a listing is a binary search and a slice. Ids are
  // 1, 2, 3, … without gaps (nothing is removed), so the pet of id n is at n − 1: no index beside it
  // (a Map of every pet cost about 40 bytes a pet and an insert per add).
  const pets: Array<Pet> = []
  let lastId = 0

  return {
    add: (data) =>
      TE.fromIO(() => {
        // CONTRACT: ids strictly increase and are never reused. JavaScript runs this synchronously,
        // so concurrent adds cannot interleave here.
        const pet: Pet = {
          id: ++lastId as PetId,
          name: data.name,
          categoryId: data.categoryId,
          status: data.status,
        }
        pets.push(pet)
        return pet
      }),
    // An id that is not a positive integer finds nothing, rather than an array's other properties.
    findById: (id) =>
      TE.fromIO(() => O.fromNullable(Number.isSafeInteger(id) && id >= 1 ? pets[id - 1] : undefined)),
    list: (listing) => TE.fromIO(() => select(pets, listing)),
  }
}

const select = (pets: ReadonlyArray<Pet>, { after, limit, status }: PetListing): ReadonlyArray<Pet> => {
  const start = firstAbove(pets, after)
  if (status === undefined) return pets.slice(start, start + limit)
  const found: Array<Pet> = []
  for (let i = start; i < pets.length && found.length < limit; i++) {
    const pet = pets[i]!
    if (pet.status === status) found.push(pet)
  }
  return found
}

const firstAbove = (pets: ReadonlyArray<Pet>, after: PageCursor): number => {
  let low = 0
  let high = pets.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (pets[mid]!.id <= after) low = mid + 1
    else high = mid
  }
  return low
}
