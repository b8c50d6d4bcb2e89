import { CategoryId, PetId } from '@pets/domain'

type Guard<A> = { readonly is: (u: unknown) => u is A }

// A defect, not a 4xx: the service never stores an id a JSON number cannot carry exactly, so such
// a value means someone wrote the row by hand or the identity ran past 2^53 - 1.
const fromInt8 =
  <A>(codec: Guard<A>, column: string) =>
  (raw: string): A => {
    const n = /^-?[0-9]+$/.test(raw) ? Number(raw) : Number.NaN
    if (codec.is(n)) return n
    throw new Error(
      `${column} holds ${JSON.stringify(raw)}, which is not an integer from 1 to 2^53 - 1 (Number.isSafeInteger fails)`,
    )
  }

/** Reads a pet id from its int8 column; throws when it is not a safe integer from 1 to 2^53 − 1. */
export const toPetId: (raw: string) => PetId = fromInt8(PetId, 'pets.id')

/** Reads a category id from its int8 column; throws when it is not a safe integer from 1 to 2^53 − 1. */
export const toCategoryId: (raw: string) => CategoryId = fromInt8(CategoryId, 'pets.category_id')
