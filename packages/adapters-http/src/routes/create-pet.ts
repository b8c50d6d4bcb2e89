import { decodeNewPet, invalidInput, MAX_ID, type CreatePetError, type Issue } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { encodePet, HEADERS } from '@pets/wire'
import { admitUrlLength, urlBytesOverLimit, urlTooLong } from '../bound-url.js'
import { unknownQueryIssues } from '../codecs.js'
import { memberIsSafeInteger } from '../integer-text.js'
import { idempotencyKeyOf } from '../idempotency-key-header.js'
import type { Problem } from '../problems.js'
import { readJsonBody } from '../read-json-body.js'
import { requestFingerprint } from '../request-fingerprint.js'
import { withRequestSpan } from '../request-span.js'
import type { HttpContext } from '../request-state.js'
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
      ? unknownQueryIssues(ctx.querystring)
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
    if (E.isLeft(body)) return sendProblem(ctx, withOtherIssues(body.left, ctx))
    // A URL over MAX_URL_BYTES is a 400: after the 415 and 413 of the body, as CONTRACT orders them.
    if (!admitUrlLength(ctx)) return
    const { value, text, names } = body.right
    const input = decodeNewPet(value)
    const issues = issuesOf(input, text, names)
    const key = idempotencyKeyOf(ctx)
    const unknown = unknownQueryIssues(ctx.querystring)
    if (E.isLeft(input) || issues.length > 0 || E.isLeft(key) || unknown.length > 0)
      return sendProblem(ctx, invalidInput([...issues, ...unknown, ...(E.isLeft(key) ? [key.left] : [])]))
    const once = O.toUndefined(key.right)
    const owner = ctx.state.apiKey
    if (once !== undefined && owner === undefined)
      throw new Error('createPet ran without an authenticated API key')
    const creation = {
      pet: input.right,
      ...(once === undefined || owner === undefined
        ? {}
        : { once: { owner: owner.keyId, key: once, fingerprint: requestFingerprint(value) } }),
    }
    // After the await of the body, the request's span is entered again where the store's work is made and
    // started (a store may read the active context either time).
    const created = await withRequestSpan(ctx, run, useCases.createPet, creation)
    if (E.isLeft(created)) return sendProblem(ctx, problemOf(created.left))
    ctx.set(HEADERS.location, `${publicBaseUrl}/pets/${created.right.id}`)
    sendJson(ctx, 201, encodePet(created.right))
  }
