import {
  decodeWith,
  refuseUnknownKeys,
  PageCursor,
  PageLimit,
  PetId,
  PetStatus,
  DEFAULT_PAGE_LIMIT,
  type InvalidInput,
  type Issue,
  type PetQuery,
} from '@pets/domain'
import { described, jsonSchemaOf } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { parseQuery, type QueryParameters } from './parse-query.js'

// The number a decimal string stands for, leading zeros or not (`020` is 20, whatever their count); NaN
// for anything else, or for more than 20 significant digits (past 2^53 anyway). One pass, no regex.
const decimalValue = (text: string): number => {
  let start = 0
  while (start < text.length - 1 && text.charCodeAt(start) === 0x30) start++
  if (text.length === 0 || text.length - start > 20) return Number.NaN
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x30 || code > 0x39) return Number.NaN
  }
  return Number(text.slice(start))
}

// Path and query values are strings: a decimal one goes to the domain's number codec, whose schema is
// kept, since OpenAPI describes a parameter by the value its text stands for.
const fromDecimal = <A>(codec: t.Type<A, number>) =>
  described(
    new t.Type<A, string>(
      codec.name,
      codec.is,
      (u, c) => codec.validate(typeof u === 'string' ? decimalValue(u) : Number.NaN, c),
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
  // Values given more than once are the repeated issue's, not the codec's; the codec reads no other name.
  const single: Record<string, string> = {}
  for (const name of LIST_PETS_PARAMETERS) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined
    if (typeof value === 'string') single[name] = value
  }
  return toPetQuery(
    refuseUnknownKeys(
      query,
      LIST_PETS_PARAMETERS,
      'a parameter of this operation',
      decodeQuery(single),
      repeated,
    ),
  )
}

/** Decodes the petId path parameter. */
export const decodePetId = (petId: string): E.Either<InvalidInput, PetId> =>
  pipe(
    decodeWith(PetIdParam)({ petId }),
    E.map((p) => p.petId),
  )

const NO_PARAMETERS: ReadonlyArray<string> = []

/**
 * The issues of a query sent to an operation that takes no query parameters (getPet, createPet): each one
 * is unknown, and refused as listPets refuses one (CONTRACT, "Why 400 on parameters": ignoring a parameter
 * would hide the mistake). None for an empty query, without parsing it.
 */
export const unknownQueryIssues = (querystring: string): ReadonlyArray<Issue> => {
  if (querystring === '') return NO_PARAMETERS as ReadonlyArray<never>
  const refused = refuseUnknownKeys(
    parseQuery(querystring),
    NO_PARAMETERS,
    'a parameter of this operation',
    E.right(undefined),
  )
  return E.isLeft(refused) ? refused.left.issues : []
}
