import { invalidInput, MAX_ID } from '@pets/domain'
import { MAX_URL_BYTES } from '../bound-url.js'
import { MAX_JSON_DEPTH } from '../body/json-depth.js'
import type { Problem } from '../problems.js'

/** A problem of one operation as its OpenAPI document shows it: when it comes, and an answer of it, named. */
export type OwnProblem = { readonly name: string; readonly when: string; readonly example: Problem }

/** A URL over MAX_URL_BYTES: 400 after authentication, and after any 404, 405, 501, 415 or 413. */
export const LONG_URL: OwnProblem = {
  name: 'UrlTooLong',
  when: `The URL is over ${MAX_URL_BYTES} bytes.`,
  example: {
    _tag: 'MalformedRequest',
    reason: `The URL must be at most ${MAX_URL_BYTES} bytes long (it has ${MAX_URL_BYTES + 904}).`,
  },
}

/** A body that cannot be read as a JSON object. */
export const UNREADABLE_BODY: OwnProblem = {
  name: 'BodyNotJson',
  when: `The body is empty, not UTF-8, not JSON, nested more than ${MAX_JSON_DEPTH} levels deep, or not a JSON object, or ended early or came too slowly.`,
  example: { _tag: 'MalformedRequest', reason: 'The request body is not valid JSON.' },
}

const UNKNOWN = 'is not a parameter of this operation (allowed: none)'

/** What createPet refuses of its body, its query or its Idempotency-Key: every issue named. */
export const INVALID_NEW_PET: OwnProblem = {
  name: 'InvalidNewPet',
  when:
    'A field of the body is missing, malformed, out of range or unknown, a query parameter is sent (it takes ' +
    'none), or the Idempotency-Key is not 1 to 255 printable characters; the message names each.',
  example: invalidInput([
    { field: 'categoryId', problem: `must be an integer from 1 to ${MAX_ID}` },
    { field: 'weight', problem: 'is not a field of a new pet (allowed: name, categoryId, status)' },
  ]),
}

/** What getPet refuses of its id or its query. */
export const INVALID_PET_ID: OwnProblem = {
  name: 'InvalidPetId',
  when: 'The petId is not an integer from 1 to 2^53 − 1, or a query parameter is sent (it takes none).',
  example: invalidInput([
    { field: 'petId', problem: `must be an integer from 1 to ${MAX_ID}` },
    { field: 'foo', problem: UNKNOWN },
  ]),
}
