import * as t from 'io-ts'
import { checked, countCodePoints } from './checked.js'

/** The largest id or category id: 2^53 − 1, the largest integer JSON numbers carry exactly in JavaScript. */
export const MAX_ID = Number.MAX_SAFE_INTEGER
/** The longest pet name, in Unicode code points. */
export const MAX_NAME_LENGTH = 255
/** The largest page of a pet listing. */
export const MAX_PAGE_LIMIT = 100
/** The page size of a listing when none is asked for. */
export const DEFAULT_PAGE_LIMIT = 20

/** Availability of a pet: exactly `available`, `pending` or `sold`. */
export const PetStatus = t.keyof({ available: null, pending: null, sold: null }, 'PetStatus')
export type PetStatus = t.TypeOf<typeof PetStatus>
/** Every PetStatus, in the order the contract lists them. */
export const PET_STATUSES: ReadonlyArray<PetStatus> = ['available', 'pending', 'sold']
/** CONTRACT: a pet added without a status is available. */
export const DEFAULT_PET_STATUS: PetStatus = 'available'

const boundedInteger = <B extends number>(name: string, min: number, max: number) => {
  const expected = `must be an integer from ${min} to ${max}`
  return checked<B, number>(name, t.number, expected, (n) =>
    Number.isSafeInteger(n) && n >= min && n <= max ? undefined : expected,
  )
}

/** The brand of PetId: a number only decoding can make. */
export interface PetIdBrand {
  readonly PetId: unique symbol
}
/** A pet's identifier: an integer from 1 to 2^53 − 1, assigned by the store, never reused. */
export type PetId = t.Branded<number, PetIdBrand>
export const PetId = boundedInteger<PetId>('PetId', 1, MAX_ID)

/** The brand of CategoryId: a number only decoding can make. */
export interface CategoryIdBrand {
  readonly CategoryId: unique symbol
}
/** The identifier of a pet's category: an integer from 1 to 2^53 − 1. */
export type CategoryId = t.Branded<number, CategoryIdBrand>
export const CategoryId = boundedInteger<CategoryId>('CategoryId', 1, MAX_ID)

// CONTRACT: at least one non-white-space character, at most 255 code points, no U+0000 and no
// unpaired surrogate (PostgreSQL keeps neither); kept exactly as sent, never trimmed.
const nameProblem = (s: string): string | undefined => {
  if (!/\S/u.test(s)) return 'must contain at least one character that is not white space'
  // Counted once, and only when its UTF-16 units are more than the code points allowed.
  const codePoints = s.length > MAX_NAME_LENGTH ? countCodePoints(s) : s.length
  if (codePoints > MAX_NAME_LENGTH)
    return `must be at most ${MAX_NAME_LENGTH} characters long (it has ${codePoints})`
  if (s.includes('\u0000')) return 'must not contain the character U+0000'
  // With the u flag, a surrogate pair is one code point, so only an unpaired half matches.
  if (/[\uD800-\uDFFF]/u.test(s)) return 'must not contain unpaired surrogates'
  return undefined
}

/** The brand of PetName: a string only decoding can make. */
export interface PetNameBrand {
  readonly PetName: unique symbol
}
/** A pet's name: 1 to 255 code points, not all white space, stored and returned exactly as given. */
export type PetName = t.Branded<string, PetNameBrand>
export const PetName = checked<PetName, string>('PetName', t.string, 'must be a string', nameProblem)

/** A pet in the catalogue. */
export const Pet = t.type({ id: PetId, name: PetName, categoryId: CategoryId, status: PetStatus }, 'Pet')
export type Pet = t.TypeOf<typeof Pet>

/** What a client gives to add a pet; `status` defaults to `available`. */
export const NewPet = t.intersection(
  [t.type({ name: PetName, categoryId: CategoryId }), t.partial({ status: PetStatus })],
  'NewPet',
)
export type NewPet = t.TypeOf<typeof NewPet>

/** A pet as a repository stores it, before it has an id. */
export type PetData = Omit<Pet, 'id'>

/** Applies the contract's defaults to a new pet. */
export const toPetData = (pet: NewPet): PetData => ({
  name: pet.name,
  categoryId: pet.categoryId,
  status: pet.status ?? DEFAULT_PET_STATUS,
})

/** The brand of PageLimit: a number only decoding can make. */
export interface PageLimitBrand {
  readonly PageLimit: unique symbol
}
/** How many pets one page of a listing holds at most: 1 to 100. */
export type PageLimit = t.Branded<number, PageLimitBrand>
export const PageLimit = boundedInteger<PageLimit>('PageLimit', 1, MAX_PAGE_LIMIT)

/** The brand of PageCursor: a number only decoding can make. */
export interface PageCursorBrand {
  readonly PageCursor: unique symbol
}
/** Where a page starts: only pets with a larger id follow. 0 starts at the beginning. */
export type PageCursor = t.Branded<number, PageCursorBrand>
export const PageCursor = boundedInteger<PageCursor>('PageCursor', 0, MAX_ID)

/** A request for one page of pets, in id order. */
export type PetQuery = {
  readonly limit: PageLimit
  readonly status?: PetStatus
  readonly after?: PageCursor
}
