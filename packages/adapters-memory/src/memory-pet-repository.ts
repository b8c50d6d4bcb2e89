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

// The rows of one status, in increasing order: a listing by status finds its first row by bisection and
// reads no row of another status (a scan for a status no pet has read every row: 4.5 ms at a million pets).
type StatusRows = { rows: Uint32Array; count: number }

// The index of the first of `index.rows` at or after `row`.
const firstAtOrAfter = (index: StatusRows, row: number): number => {
  let [low, high] = [0, index.count]
  while (low < high) {
    const middle = (low + high) >>> 1
    if (index.rows[middle]! < row) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * A pet repository in the process's memory, gone when the process ends. Ids have no gaps, so pet n is
 * row n − 1; rows are columns, not objects, for peak RSS (bench/RESULTS.md#in-memory-create), and each
 * status keeps its rows, so that a listing by status costs its page, not the rows between.
 */
export const createMemoryPetRepository = (): PetRepository => {
  const names: Array<PetName> = []
  let categories = new Float64Array(1024) // exact up to 2^53 − 1
  let statuses = new Uint8Array(1024)
  const byStatus: Array<StatusRows> = PET_STATUSES.map(() => ({ rows: new Uint32Array(1024), count: 0 }))
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

  const index = (row: number, code: number) => {
    const of = byStatus[code]!
    if (of.count === of.rows.length) {
      const more = new Uint32Array(of.rows.length * 2)
      more.set(of.rows)
      of.rows = more
    }
    of.rows[of.count++] = row
  }

  // Pets with an id above `after` are the rows from `after` on.
  const select = ({ after, limit, status }: PetListing): ReadonlyArray<Pet> => {
    const found: Array<Pet> = []
    if (status === undefined) {
      for (let row = Math.min(after, count); row < count && found.length < limit; row++)
        found.push(petAt(row))
      return found
    }
    const of = byStatus[STATUS_CODES.get(status)!]!
    for (let i = firstAtOrAfter(of, Math.min(after, count)); i < of.count && found.length < limit; i++)
      found.push(petAt(of.rows[i]!))
    return found
  }

  return {
    add: (data) =>
      TE.fromIO(() => {
        // CONTRACT: ids strictly increase, never reused; this runs synchronously, so adds cannot interleave.
        if (count === categories.length) grow()
        names.push(data.name)
        categories[count] = data.categoryId
        const code = STATUS_CODES.get(data.status)!
        statuses[count] = code
        index(count, code)
        return petAt(count++)
      }),
    // An id that is not a positive integer finds nothing.
    findById: (id) =>
      TE.fromIO(() => (Number.isSafeInteger(id) && id >= 1 && id <= count ? O.some(petAt(id - 1)) : O.none)),
    list: (listing) => TE.fromIO(() => select(listing)),
  }
}
