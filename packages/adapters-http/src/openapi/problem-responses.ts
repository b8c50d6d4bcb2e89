import { GET_PET_SUNSET, invalidInput, MAX_ID, type PetId } from '@pets/domain'
import { ErrorBody, ERRORS, schemaRef, type JsonSchema } from '@pets/wire'
import { toErrorResponse, type ErrorResponse, type Problem } from '../problems.js'
import { MAX_BODY_BYTES } from '../body/read-json-body.js'
import type { OwnProblem } from '../routes/route-problems.js'
import { commonHeaderRefs, PROBLEM_HEADERS, type HeaderObject, type HeaderRef } from './headers.js'

type ProblemNote<T extends Problem['_tag']> = {
  readonly when: string
  /** Instances of the problem: status, code, message and headers are taken from their answers. */
  readonly examples: ReadonlyArray<Extract<Problem, { _tag: T }>>
}

// Every tag needs a note, so a new problem is a type error here until the document can tell it.
const NOTES: { readonly [T in Problem['_tag']]: ProblemNote<T> } = {
  InvalidInput: {
    when: 'A query parameter is malformed, out of range, repeated or unknown; the message names each.',
    examples: [invalidInput([{ field: 'limit', problem: 'must be an integer from 1 to 100' }])],
  },
  MalformedRequest: {
    when:
      'The request cannot be read: its line and headers are over 16 KiB together or not valid HTTP/1.1, or it ' +
      "carries no Host or several (answered before authentication, without the operation's own headers).",
    examples: [
      { _tag: 'MalformedRequest', reason: 'The request line and headers must be at most 16 KiB together.' },
    ],
  },
  Unauthorized: {
    when: 'The API key is missing or invalid, `Authorization` came on more than one line, or a tab separates its key from `Bearer`.',
    examples: [
      { _tag: 'Unauthorized', keySent: false },
      { _tag: 'Unauthorized', keySent: true },
      { _tag: 'Unauthorized', keySent: true, malformed: 'twice' },
      { _tag: 'Unauthorized', keySent: true, malformed: 'tab' },
    ],
  },
  PetNotFound: { when: 'No pet has this id.', examples: [{ _tag: 'PetNotFound', id: MAX_ID as PetId }] },
  RouteNotFound: { when: 'No resource is at this path.', examples: [{ _tag: 'RouteNotFound' }] },
  MethodNotAllowed: {
    when: 'The path does not allow this method.',
    examples: [{ _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] }],
  },
  NotImplemented: {
    when:
      'The operation is not implemented, or asks for what this service does not keep (an `Idempotency-Key`), or ' +
      'its body comes in a transfer coding other than `chunked` alone.',
    examples: [{ _tag: 'NotImplemented' }],
  },
  UnsupportedMediaType: {
    when: 'The body is not sent as `application/json` in UTF-8 (one `Content-Type` line), or is compressed.',
    examples: [
      {
        _tag: 'UnsupportedMediaType',
        reason: 'The request body must be JSON, sent with "Content-Type: application/json".',
      },
      {
        _tag: 'UnsupportedMediaType',
        reason: 'Content-Encoding "gzip" is not supported; send the body uncompressed.',
        coding: true,
      },
    ],
  },
  PayloadTooLarge: {
    when: `The body is larger than ${MAX_BODY_BYTES} bytes.`,
    examples: [{ _tag: 'PayloadTooLarge', limit: MAX_BODY_BYTES }],
  },
  Gone: {
    when: 'The operation has passed its sunset.',
    examples: [{ _tag: 'Gone', operation: 'getPet', sunset: GET_PET_SUNSET }],
  },
  StoreUnavailable: {
    when: 'The store cannot be reached; try again after `Retry-After` seconds.',
    examples: [{ _tag: 'StoreUnavailable' }],
  },
  ShuttingDown: {
    when: 'This instance is shutting down; try again after `Retry-After` seconds.',
    examples: [{ _tag: 'ShuttingDown' }],
  },
  InternalError: {
    when: 'A defect on the service side; the request id helps find it.',
    examples: [{ _tag: 'InternalError' }],
  },
  IdempotencyKeyInUse: {
    when: 'A request with the same Idempotency-Key is still being performed.',
    examples: [{ _tag: 'IdempotencyKeyInUse' }],
  },
  IdempotencyKeyReused: {
    when: 'The Idempotency-Key was used before for a different request.',
    examples: [{ _tag: 'IdempotencyKeyReused' }],
  },
  RateLimited: {
    when:
      'The API key has used up its rate limit, or, while keys must be looked up in the store, too many ' +
      "keys that are not valid came from this client's address (answered before the lookup); try again " +
      'after `Retry-After` seconds.',
    examples: [{ _tag: 'RateLimited', retryAfterSeconds: 1 }],
  },
}

/**
 * A problem an operation may answer with; `fromOperation` when it carries the operation's own headers; `own`
 * when the operation tells when it comes and shows an answer of its own, not the problem's note.
 */
export type ProblemSource = {
  readonly tag: Problem['_tag']
  readonly fromOperation: boolean
  readonly own?: OwnProblem
}

type Answer = ErrorResponse & {
  readonly tag: Problem['_tag']
  /** The name of its example: the problem's, or the operation's own. */
  readonly name: string
  readonly when: string
  readonly fromOperation: boolean
}

const answersOf = ({ tag, fromOperation, own }: ProblemSource): ReadonlyArray<Answer> => {
  if (own !== undefined)
    return [{ ...toErrorResponse(own.example), tag, name: own.name, when: own.when, fromOperation }]
  const note = NOTES[tag] as ProblemNote<typeof tag>
  return note.examples.map((example) => ({
    ...toErrorResponse(example),
    tag,
    name: tag,
    when: note.when,
    fromOperation,
  }))
}

const headersOf = (
  answers: ReadonlyArray<Answer>,
  operationHeaders: Readonly<Record<string, Omit<HeaderObject, 'required'>>>,
): Record<string, HeaderObject | HeaderRef> => {
  const headers: Record<string, HeaderObject | HeaderRef> = commonHeaderRefs()
  const names = new Set(answers.flatMap((answer) => Object.keys(answer.headers)))
  for (const name of names) {
    const known = PROBLEM_HEADERS[name]
    if (known === undefined) throw new Error(`Cannot describe the header ${name} of an error response`)
    const seen = answers.flatMap((answer) => answer.headers[name] ?? [])
    headers[name] = {
      description: known.description,
      required: seen.length === answers.length,
      schema: known.schema(seen),
    }
  }
  // CONTRACT: answers of authentication, and of defects, come without the operation's own headers (the rate
  // limit's and a long URL's, after authentication, with them).
  const fromOperation = answers.filter((answer) => answer.fromOperation).length
  if (fromOperation > 0)
    for (const [name, header] of Object.entries(operationHeaders))
      headers[name] = { ...header, required: fromOperation === answers.length }
  return headers
}

const unique = <A>(values: ReadonlyArray<A>) => [...new Set(values)]

/**
 * The error responses of an operation by status, taken from what toErrorResponse answers for its
 * problems; `operationHeaders` are required where only the operation answers.
 */
export const problemResponses = (
  sources: ReadonlyArray<ProblemSource>,
  operationHeaders: Readonly<Record<string, Omit<HeaderObject, 'required'>>> = {},
): Record<string, JsonSchema> => {
  const byStatus = new Map<number, Array<Answer>>()
  for (const answer of sources.flatMap(answersOf))
    byStatus.set(answer.body.status, [...(byStatus.get(answer.body.status) ?? []), answer])
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, answers]) => [
        String(status),
        {
          description: unique(answers.map((answer) => answer.when)).join(' '),
          headers: headersOf(answers, operationHeaders),
          content: {
            'application/json': {
              schema: {
                allOf: [schemaRef(ErrorBody)],
                properties: {
                  code: { enum: unique(answers.map((answer) => answer.body.code)) },
                  status: { const: status },
                },
              },
              // One example per problem (its answers differ at most in their headers), or per way an operation
              // tells one of its own.
              examples: Object.fromEntries(
                answers.map((answer) => [
                  answer.name,
                  { summary: ERRORS[answer.body.code].title, value: answer.body },
                ]),
              ),
            },
          },
        },
      ]),
  )
}
