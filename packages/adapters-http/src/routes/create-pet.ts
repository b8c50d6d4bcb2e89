import {
  decodeNewPet,
  invalidInput,
  MAX_ID,
  NEW_PET_FIELDS,
  UNKNOWN_NAMED,
  unknownKeyIssues,
  type CreatePetError,
  type InvalidInput,
  type Issue,
  type NewPet,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { encodePet, HEADERS } from '@pets/wire'
import { admitUrlLength, urlBytesOverLimit, urlTooLong } from '../bound-url.js'
import { unknownQueryIssues } from '../codecs.js'
import { memberIsSafeInteger } from '../body/integer-text.js'
import { idempotencyKeyOf } from '../idempotency-key-header.js'
import type { Problem } from '../problems.js'
import { forEachTopLevelMember } from '../body/json-text.js'
import { readJsonBody, type JsonBody, type RefusedJsonBody } from '../body/read-json-body.js'
import { MAX_MEMBERS } from '../body/repeated-member.js'
import { requestFingerprint } from '../request-fingerprint.js'
import { withRequestSpan } from '../request-span.js'
import { queryOf, type HttpContext } from '../request-state.js'
import { sendJson, sendProblem } from '../respond.js'
import type { PetsUseCases } from '../use-cases.js'

export type CreatePetOptions = {
  readonly useCases: PetsUseCases
  readonly publicBaseUrl: string
  /** How long the body may take to arrive; readJsonBody's default unless given. */
  readonly bodyTimeoutMs?: number
}

// CONTRACT: categoryId is a JSON integer in 1..2^53-1. JSON.parse makes integers of some numbers
// that are not (`9007199254740990.5`, `0.99999999999999999`): the text tells.
const INEXACT_CATEGORY_ID: Issue = {
  field: 'categoryId',
  problem: `must be an integer from 1 to ${MAX_ID}; this number is not one, though it would be rounded to one`,
}

// Every issue of the body (CONTRACT: a 400 names every offending field): the decoder's, and a categoryId
// that JSON.parse rounded into one the decoder takes, unless the decoder already named that field.
const issuesOf = (
  decoded: ReturnType<typeof decodeNewPet>,
  text: string,
  names: ReadonlyArray<number>,
): ReadonlyArray<Issue> => {
  const issues = E.isLeft(decoded) ? decoded.left.issues : []
  const named = issues.some((issue) => issue.field === 'categoryId')
  return named || memberIsSafeInteger(text, 'categoryId', names) !== false
    ? issues
    : [...issues, INEXACT_CATEGORY_ID]
}

const KNOWN_FIELDS: ReadonlyArray<string> = NEW_PET_FIELDS
const NOT_AN_OBJECT: Issue = { field: '', problem: 'must be an object' }

// The issues of a body's members read one by one, not as JSON.parse made its value (the decoder would take
// every key of it): its known fields decoded from a copy, its unknown names read from the text in the order
// sent, once each. A body of more than MAX_MEMBERS members (a new pet has 3) names the first UNKNOWN_NAMED and
// counts the other members, not listed (a name given again past the first MAX_MEMBERS among them; `repeated`, one
// given twice before, is not): Object.keys of 5,000 members cost 0.6 times the JSON.parse that made them.
const memberIssues = (
  value: Readonly<Record<string, unknown>>,
  text: string,
  names: ReadonlyArray<number>,
  repeated: string | undefined,
): ReadonlyArray<Issue> => {
  const fields: Record<string, unknown> = {}
  for (const field of KNOWN_FIELDS) if (Object.hasOwn(value, field)) fields[field] = value[field]
  const crowded = names.length > MAX_MEMBERS
  const unknown: Array<string> = []
  forEachTopLevelMember(text, names, (name) => {
    if (!KNOWN_FIELDS.includes(name) && !unknown.includes(name)) unknown.push(name)
    return crowded && unknown.length === UNKNOWN_NAMED
  })
  const decoded = decodeNewPet(fields)
  const count = crowded
    ? names.length - Object.keys(fields).length - (repeated === undefined ? 0 : 1)
    : unknown.length
  return [
    ...(E.isLeft(decoded) ? decoded.left.issues : []),
    ...unknownKeyIssues(unknown, count, KNOWN_FIELDS, 'a field of a new pet'),
  ]
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

// The new pet of a body, or every issue of its fields (CONTRACT: a 400 names each). A body refused for a
// member given twice or a key that reaches a prototype is read member by member, its refusal named first and the
// member given twice for that alone (which of its values JSON.parse kept is no one's choice).
const newPetOf = (read: E.Either<RefusedJsonBody, JsonBody>): E.Either<ReadonlyArray<Issue>, NewPet> => {
  const { value, text, names } = E.isLeft(read) ? read.left.body : read.right
  const repeated = E.isLeft(read) ? read.left.repeated : undefined
  const decoded: E.Either<InvalidInput, NewPet> =
    E.isLeft(read) || names.length > MAX_MEMBERS
      ? E.left(invalidInput(isObject(value) ? memberIssues(value, text, names, repeated) : [NOT_AN_OBJECT]))
      : decodeNewPet(value)
  const issues = issuesOf(decoded, text, names)
  if (E.isRight(read)) return E.isLeft(decoded) || issues.length > 0 ? E.left(issues) : decoded
  const { issue } = read.left
  return E.left([issue, ...(repeated === undefined ? issues : issues.filter((i) => i.field !== issue.field))])
}

// A host whose store keeps no record of requests with a key answers them 501.
const problemOf = (error: CreatePetError): Problem =>
  error._tag === 'IdempotencyUnsupported' ? { _tag: 'NotImplemented' } : error

// CONTRACT: a 400 names every offending field. A body that is no JSON has no fields to name, but the
// Idempotency-Key or the query may be wrong too: said in the same answer. A 415 or 413 comes alone, before any 400.
// A URL over MAX_URL_BYTES is said to be, its query unread, as when the body is JSON: a 16 KiB head holds
// 8,000 parameters to parse and name (15 KB of `a&a&…` cost 51 ms of CPU, 2.8 ms with distinct names).
const withOtherIssues = (problem: Problem, ctx: HttpContext): Problem => {
  if (problem._tag !== 'MalformedRequest') return problem
  const key = idempotencyKeyOf(ctx)
  const bytes = urlBytesOverLimit(ctx)
  const others = [
    ...(bytes === undefined
      ? unknownQueryIssues(queryOf(ctx))
      : [{ field: 'the URL', problem: urlTooLong(bytes) }]),
    ...(E.isLeft(key) ? [key.left] : []),
  ]
  return others.length === 0
    ? problem
    : {
        ...problem,
        reason: `${problem.reason} Also, ${others.map(({ field, problem: what }) => `${field} ${what}`).join('; ')}.`,
      }
}

// Makes a use case's task and starts it.
const run = <A, R>(make: (input: A) => () => Promise<R>, input: A): Promise<R> => make(input)()

/**
 * The handler of createPet, at most once per API key and Idempotency-Key (a retry gets the first answer,
 * another body 422, a concurrent one 409); checks in the contract's order: 415, 413, 400, 409/422.
 */
export const createPetHandler =
  ({ useCases, publicBaseUrl, bodyTimeoutMs }: CreatePetOptions) =>
  async (ctx: HttpContext): Promise<void> => {
    const body = await readJsonBody(ctx, bodyTimeoutMs === undefined ? {} : { timeoutMs: bodyTimeoutMs })
    if (E.isLeft(body) && body.left._tag !== 'RefusedJsonBody')
      return sendProblem(ctx, withOtherIssues(body.left, ctx))
    const read = body as E.Either<RefusedJsonBody, JsonBody>
    const input = newPetOf(read)
    const key = idempotencyKeyOf(ctx)
    // A URL over MAX_URL_BYTES is a 400 (its query unread): after the 415 and 413 of the body, as CONTRACT
    // orders them, and named beside the body's issues.
    const bytes = urlBytesOverLimit(ctx)
    const issues = [
      ...(E.isLeft(input) ? input.left : []),
      ...(bytes === undefined
        ? unknownQueryIssues(queryOf(ctx))
        : [{ field: 'the URL', problem: urlTooLong(bytes) }]),
      ...(E.isLeft(key) ? [key.left] : []),
    ]
    if (issues.length === 1 && bytes !== undefined) return void admitUrlLength(ctx)
    if (E.isLeft(read) || E.isLeft(input) || E.isLeft(key) || issues.length > 0)
      return sendProblem(ctx, invalidInput(issues))
    const once = O.toUndefined(key.right)
    const owner = ctx.state.apiKey
    if (once !== undefined && owner === undefined)
      throw new Error('createPet ran without an authenticated API key')
    const creation = {
      pet: input.right,
      ...(once === undefined || owner === undefined
        ? {}
        : { once: { owner: owner.keyId, key: once, fingerprint: requestFingerprint(read.right.value) } }),
    }
    // After the await of the body, the request's span is entered again where the store's work is made and
    // started (a store may read the active context either time).
    const created = await withRequestSpan(ctx, run, useCases.createPet, creation)
    if (E.isLeft(created)) return sendProblem(ctx, problemOf(created.left))
    ctx.set(HEADERS.location, `${publicBaseUrl}/pets/${created.right.id}`)
    sendJson(ctx, 201, encodePet(created.right))
  }
