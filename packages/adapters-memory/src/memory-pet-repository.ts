import {
  PET_STATUSES,
  type CategoryId,
  type Pet,
  type PetId,
  type PetListing,
  type PetName,
  type PetRepository,
  type PetStatus,
} from '@pets/domain'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'

const STATUS_CODES: ReadonlyMap<PetStatus, number> = new Map(PET_STATUSES.map((status, i) => [status, i]))

/**
 * A pet repository in the process's memory, gone when the process ends. Ids have no gaps, so pet n is
 * row n − 1; rows are columns, not objects, for peak RSS (bench/RESULTS.md#in-memory-create).
 */
export const createMemoryPetRepository = (): PetRepository => {
  const names: Array<PetName> = []
  let categories = new Float64Array(1024) // exact up to 2^53 − 1
  let statuses = new Uint8Array(1024)
  let count = 0

  const petAt = (row: number): Pet => ({
    id: (row + 1) as PetId,
    name: names[row]!,
    categoryId: categories[row]! as CategoryId,
    status: PET_STATUSES[statuses[row]!]!,
  })

  const grow = () => {
    const more = new Float64Array(categories.length * 2)
    more.set(categories)
    categories = more
    const moreStatuses = new Uint8Array(statuses.length * 2)
    moreStatuses.set(statuses)
    statuses = moreStatuses
  }

  const select = ({ after, limit, status }: PetListing): ReadonlyArray<Pet> => {
    const found: Array<Pet> = []
    const code = status === undefined ? undefined : STATUS_CODES.get(status)
    for (let row = Math.min(after, count); row < count && found.length < limit; row++)
      if (code === undefined || statuses[row] === code) found.push(petAt(row))
    return found
  }

  return {
    add: (data) =>
      TE.fromIO(() => {
        // CONTRACT: ids strictly increase, never reused; this runs synchronously, so adds cannot interleave.
        if (count === categories.length) grow()
        names.push(data.name)
        categories[count] = data.categoryId
        statuses[count] = STATUS_CODES.get(data.status)!
        return petAt(count++)
      }),
    // An id that is not a positive integer finds nothing.
    findById: (id) =>
      TE.fromIO(() => (Number.isSafeInteger(id) && id >= 1 && id <= count ? O.some(petAt(id - 1)) : O.none)),
    list: (listing) => TE.fromIO(() => select(listing)),
  }
}
