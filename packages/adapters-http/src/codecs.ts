import {
  decodeWith,
  invalidInput,
  PageCursor,
  PageLimit,
  PetId,
  PetStatus,
  DEFAULT_PAGE_LIMIT,
  type InvalidInput,
  type Issue,
  type NewPet,
  type PetQuery,
} from '@pets/domain'
import { described, jsonSchemaOf, NEW_PET_FIELDS, NewPetBody } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { QueryParameters } from './parse-query.js'

// Path and query values arrive as strings: a decimal integer string is handed to the domain's
// number codec, anything else is refused with that codec's own message.
const DECIMAL = /^[0-9]{1,20}$/
// The codec keeps the domain codec's JSON Schema: OpenAPI describes a query or path parameter by
// the value its text stands for (an integer), not by the text.
const fromDecimal = <A>(codec: t.Type<A, number>) =>
  described(
    new t.Type<A, string>(
      codec.name,
      codec.is,
      (u, c) => codec.validate(typeof u === 'string' && DECIMAL.test(u) ? Number(u) : Number.NaN, c),
      String,
    ),
    jsonSchemaOf(codec),
  )

/** The query of `GET /v1/pets`. */
export const ListPetsQuery = t.partial(
  { limit: fromDecimal(PageLimit), status: PetStatus, after: fromDecimal(PageCursor) },
  'ListPetsQuery',
)
export const LIST_PETS_PARAMETERS = ['limit', 'status', 'after'] as const

/** The path parameter of `GET /v1/pets/{petId}`. */
export const PetIdParam = t.type({ petId: fromDecimal(PetId) }, 'PetIdParam')

/** The most unknown fields or parameters a 400 names one by one; the rest are counted. */
export const UNKNOWN_NAMED = 20
// A name longer than this is cut: a 64 KiB body may hold one key of 60,000 characters.
const LONGEST_NAME = 64

// An issue of the field '' is about the whole input, so an unknown key that is empty is named `""`.
const nameOf = (key: string) =>
  key === '' ? '""' : key.length <= LONGEST_NAME ? key : `${key.slice(0, LONGEST_NAME)}…`

// The first UNKNOWN_NAMED, then "N more are unknown too": a body of one-letter keys would
// otherwise get an answer ten times its size.
const unknownKeys = (value: object, known: ReadonlyArray<string>, what: string): Array<Issue> => {
  const unknown = Object.keys(value).filter((key) => !known.includes(key))
  if (unknown.length === 0) return []
  const problem = `is not ${what} (allowed: ${known.join(', ')})`
  const issues: Array<Issue> = unknown.slice(0, UNKNOWN_NAMED).map((key) => ({ field: nameOf(key), problem }))
  if (unknown.length > UNKNOWN_NAMED)
    issues.push({ field: `${unknown.length - UNKNOWN_NAMED} more`, problem: 'are unknown too' })
  return issues
}

const combine = <A>(
  decoded: E.Either<InvalidInput, A>,
  extra: ReadonlyArray<Issue>,
): E.Either<InvalidInput, A> =>
  extra.length === 0
    ? decoded
    : E.left(invalidInput([...(E.isLeft(decoded) ? decoded.left.issues : []), ...extra]))

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/** Decodes a parsed JSON body into a NewPet; every wrong, missing or unknown field is named. */
export const decodeNewPet = (body: unknown): E.Either<InvalidInput, NewPet> =>
  isObject(body)
    ? // CONTRACT: a field the service does not keep (`id` included) is refused, never dropped.
      combine(decodeWith(NewPetBody)(body), unknownKeys(body, NEW_PET_FIELDS, 'a field of a new pet'))
    : E.left(invalidInput([{ field: '', problem: 'must be a JSON object' }]))

const KNOWN_PARAMETERS: ReadonlySet<string> = new Set(LIST_PETS_PARAMETERS)
const decodeQuery = decodeWith(ListPetsQuery)
const toPetQuery = E.map(({ limit, status, after }: t.TypeOf<typeof ListPetsQuery>): PetQuery => ({
  limit: limit ?? (DEFAULT_PAGE_LIMIT as PageLimit),
  ...(status === undefined ? {} : { status }),
  ...(after === undefined ? {} : { after }),
}))
const WITHOUT_PARAMETERS = toPetQuery(decodeQuery({}))

/** Decodes the query of a listing: each parameter at most once, none unknown. */
export const decodeListPetsQuery = (query: QueryParameters): E.Either<InvalidInput, PetQuery> => {
  const names = Object.keys(query)
  if (names.length === 0) return WITHOUT_PARAMETERS
  // The usual query, known parameters each given once, goes straight to the codec.
  if (names.every((name) => KNOWN_PARAMETERS.has(name) && !Array.isArray(query[name])))
    return toPetQuery(decodeQuery(query))
  const repeated = names
    .filter((name) => KNOWN_PARAMETERS.has(name) && Array.isArray(query[name]))
    .map((name) => ({ field: name, problem: 'must be given at most once' }))
  // Values given more than once are the repeated issue's, not the codec's.
  const single = Object.fromEntries(Object.entries(query).filter(([, value]) => !Array.isArray(value)))
  return toPetQuery(
    combine(decodeQuery(single), [
      ...repeated,
      ...unknownKeys(query, LIST_PETS_PARAMETERS, 'a parameter of this operation'),
    ]),
  )
}

/** Decodes the petId path parameter. */
export const decodePetId = (petId: string): E.Either<InvalidInput, PetId> =>
  pipe(
    decodeWith(PetIdParam)({ petId }),
    E.map((p) => p.petId),
  )
