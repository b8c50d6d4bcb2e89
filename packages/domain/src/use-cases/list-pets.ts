import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../errors.js'
import type { PageCursor, Pet, PetQuery } from '../pet.js'
import type { PetListing, PetRepository } from '../ports.js'

/** One page of a listing, and where the next one starts when more pets match. */
export type PetPage = { readonly pets: ReadonlyArray<Pet>; readonly next: O.Option<PageCursor> }

/** What listPets needs. */
export type ListPetsDeps = { readonly pets: PetRepository }

/** Lists pets in id order, a page at a time, optionally only those of one status. */
export const listPets =
  ({ pets }: ListPetsDeps) =>
  (query: PetQuery): TE.TaskEither<StoreUnavailable, PetPage> => {
    const after = query.after ?? (0 as PageCursor)
    // One row more than asked tells whether a next page exists.
    const limit = query.limit + 1
    // Literals, not `{ ...query, limit }`: V8 would clone the query's map, then overwrite `limit`.
    const listing: PetListing =
      query.status === undefined ? { after, limit } : { after, limit, status: query.status }
    return pipe(
      pets.list(listing),
      TE.map((rows) => toPage(rows, query.limit)),
    )
  }

const toPage = (rows: ReadonlyArray<Pet>, limit: number): PetPage => {
  if (rows.length <= limit) return { pets: rows, next: O.none }
  const pets = rows.slice(0, limit)
  return { pets, next: O.some(pets[pets.length - 1]!.id as number as PageCursor) }
}
