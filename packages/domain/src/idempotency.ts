import * as t from 'io-ts'
import type { ApiKeyId } from './api-key.js'
import { checked } from './checked.js'
import type { NewPet, PetData } from './pet.js'

/** CONTRACT: a request with an Idempotency-Key is performed at most once for at least 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000
/** The longest idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

// CONTRACT: 1 to 255 printable ASCII characters (0x20-0x7E).
const PRINTABLE = /^[\x20-\x7E]*$/

/** The brand of IdempotencyKey: a string that its codec accepted. */
export interface IdempotencyKeyBrand {
  readonly IdempotencyKey: unique symbol
}
/** A client's name for one request, so that a retry of it is recognised: 1 to 255 printable ASCII characters. */
export type IdempotencyKey = t.Branded<string, IdempotencyKeyBrand>
export const IdempotencyKey = checked<IdempotencyKey, string>(
  'IdempotencyKey',
  t.string,
  'must be a string',
  (s) => {
    if (s.length === 0) return 'must not be empty'
    if (s.length > MAX_IDEMPOTENCY_KEY_LENGTH)
      return `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long (it has ${s.length})`
    return PRINTABLE.test(s) ? undefined : 'must be printable ASCII (0x20 to 0x7E)'
  },
)

/** A request to add a pet at most once per API key and idempotency key. */
export type PetCreationRequest = {
  readonly owner: ApiKeyId
  readonly key: IdempotencyKey
  /** The request reduced to a string, equal only for the same request (HTTP: a digest of the body). */
  readonly fingerprint: string
  readonly pet: NewPet
}

/** What an IdempotentPetCreations store is asked to do, with the instants that the use case fixes. */
export type IdempotentCreation = Omit<PetCreationRequest, 'pet'> & {
  readonly pet: PetData
  /** When the request came; its record is dated so. */
  readonly at: Date
  /** A record made before this instant has expired: it is neither replayed nor refused, but replaced. */
  readonly expiredBefore: Date
}
