import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { describeErrors, type Issue } from './checked.js'
import { invalidInput, type InvalidInput } from './errors.js'
import { NewPet } from './pet.js'

/** Decodes a value with a codec of the domain; each failure names its field. */
export const decodeWith =
  <A, O>(codec: t.Type<A, O, unknown>) =>
  (input: unknown): E.Either<InvalidInput, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => invalidInput(describeErrors(errors))),
    )

/** The most unknown fields or parameters a refusal names one by one; the rest are counted. */
export const UNKNOWN_NAMED = 20
// A name longer than this is cut: a 64 KiB body may hold one key of 60,000 characters.
const LONGEST_NAME = 64

/**
 * A field name as a refusal shows it: `""` for the empty name (an issue of the field '' is about the whole
 * input), and a name longer than 64 characters cut there, with `…`.
 */
export const shownFieldName = (key: string) =>
  key === '' ? '""' : key.length <= LONGEST_NAME ? key : `${key.slice(0, LONGEST_NAME)}…`

/**
 * The issues of `count` unknown keys, of which `unknown` holds the first: UNKNOWN_NAMED of them named, the
 * others counted, so a flood of keys gets a short answer.
 */
export const unknownKeyIssues = (
  unknown: ReadonlyArray<string>,
  count: number,
  known: ReadonlyArray<string>,
  what: string,
): ReadonlyArray<Issue> => {
  const problem = `is not ${what} (allowed: ${known.length === 0 ? 'none' : known.join(', ')})`
  const named = unknown.slice(0, UNKNOWN_NAMED)
  const issues: Array<Issue> = named.map((key) => ({ field: shownFieldName(key), problem }))
  if (count > named.length) issues.push({ field: `${count - named.length} more`, problem: 'are unknown too' })
  return issues
}

/**
 * `decoded`, unless `input` has keys outside `known` or `extra` is not empty: then every issue, the
 * unknown keys past UNKNOWN_NAMED counted, not named (unknownKeyIssues).
 */
export const refuseUnknownKeys = <A>(
  input: object,
  known: ReadonlyArray<string>,
  what: string,
  decoded: E.Either<InvalidInput, A>,
  extra: ReadonlyArray<Issue> = [],
): E.Either<InvalidInput, A> => {
  const unknown = Object.keys(input).filter((key) => !known.includes(key))
  if (unknown.length === 0 && extra.length === 0) return decoded
  return E.left(
    invalidInput([
      ...(E.isLeft(decoded) ? decoded.left.issues : []),
      ...extra,
      ...unknownKeyIssues(unknown, unknown.length, known, what),
    ]),
  )
}

/** The fields a new pet may have. */
export const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

const decodeNewPetFields = decodeWith(NewPet)

/**
 * Checks an untrusted value against the invariants of a new pet, naming every wrong field.
 * CONTRACT: a field the store does not keep (`id` included) is refused, never dropped.
 */
export const decodeNewPet = (input: unknown): E.Either<InvalidInput, NewPet> =>
  isObject(input)
    ? refuseUnknownKeys(input, NEW_PET_FIELDS, 'a field of a new pet', decodeNewPetFields(input))
    : E.left(invalidInput([{ field: '', problem: 'must be an object' }]))
