import { CategoryId, PetId, type Pet, type PetName, type PetStatus } from '@pets/domain'

type Guard<A> = { readonly is: (u: unknown) => u is A }

// A defect, not a 4xx: the service never stores an id past 2^53 - 1. PostgreSQL writes an int8 as plain
// digits, which Number reads exactly up to 2^53 - 1; past it, it rounds to a value the codec refuses.
const fromInt8 =
  <A>(codec: Guard<A>, column: string) =>
  (raw: string): A => {
    const n = Number(raw)
    if (codec.is(n)) return n
    throw new Error(
      `${column} holds ${JSON.stringify(raw)}, which is not an integer from 1 to 2^53 - 1 (Number.isSafeInteger fails)`,
    )
  }

/** Reads a pet id from its int8 column; throws when it is not a safe integer from 1 to 2^53 − 1. */
export const toPetId: (raw: string) => PetId = fromInt8(PetId, 'pets.id')

/** Reads a category id from its int8 column; throws when it is not a safe integer from 1 to 2^53 − 1. */
export const toCategoryId: (raw: string) => CategoryId = fromInt8(CategoryId, 'pets.category_id')

/** A pet from its row's text fields (id, name, category_id, status); throws on an id out of range. */
export const toPet = (fields: ReadonlyArray<string | null>): Pet => ({
  id: toPetId(fields[0] ?? ''),
  // It was a PetName when it was stored, and the table's CHECK keeps its length within bounds.
  name: fields[1] as PetName,
  categoryId: toCategoryId(fields[2] ?? ''),
  status: fields[3] as PetStatus,
})
