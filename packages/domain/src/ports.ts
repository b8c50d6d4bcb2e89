import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiKeyId, ApiKeyName, ApiKeyOwner, ApiKeyRecord, IssuedApiKey } from './api-key.js'
import type { OperationCalls } from './api-key-usage.js'
import type { IdempotencyKeyInUse, IdempotencyKeyReused, StoreUnavailable } from './errors.js'
import type { IdempotentCreation } from './idempotency.js'
import type { PageCursor, Pet, PetData, PetId, PetStatus } from './pet.js'

/** What a repository is asked for: at most `limit` pets with an id above `after`, in id order. */
export type PetListing = {
  readonly limit: number
  readonly after: PageCursor
  readonly status?: PetStatus
}

/** Where pets are kept. Ids are assigned by the repository: strictly increasing, never reused. */
export interface PetRepository {
  readonly add: (pet: PetData) => TE.TaskEither<StoreUnavailable, Pet>
  readonly findById: (id: PetId) => TE.TaskEither<StoreUnavailable, O.Option<Pet>>
  readonly list: (listing: PetListing) => TE.TaskEither<StoreUnavailable, ReadonlyArray<Pet>>
}

/** Tells whether an API key is valid and whose it is. A revoked key is unknown from the next call on. */
export interface Authenticator {
  readonly authenticate: (apiKey: string) => TE.TaskEither<StoreUnavailable, O.Option<ApiKeyOwner>>
  /** The answer without I/O when memory alone can tell, else `undefined`; only lookups are rate-limited. */
  readonly fromMemory?: (apiKey: string) => O.Option<ApiKeyOwner> | undefined
}

/** Issues, lists and revokes API keys; keeps only their SHA-256 digests. */
export interface ApiKeyStore extends Authenticator {
  readonly issue: (name: ApiKeyName) => TE.TaskEither<StoreUnavailable, IssuedApiKey>
  readonly list: () => TE.TaskEither<StoreUnavailable, ReadonlyArray<ApiKeyRecord>>
  /** Revokes a key; `none` when no unrevoked key has this id. */
  readonly revoke: (id: ApiKeyId) => TE.TaskEither<StoreUnavailable, O.Option<ApiKeyRecord>>
}

/** The time, as the service sees it. A port so that tests (and CLOCK_NOW) can move it. */
export interface Clock {
  readonly now: () => Date
}

/** Counts each API key's calls per operation, to find who still calls one before its sunset. */
export interface ApiKeyUsageLog {
  /** Adds each entry's calls (repeated entries all count); the last call only moves forward. */
  readonly add: (entries: ReadonlyArray<OperationCalls>) => TE.TaskEither<StoreUnavailable, void>
  /** Every key's counts, ordered by key id, then operation, as text. */
  readonly list: () => TE.TaskEither<StoreUnavailable, ReadonlyArray<OperationCalls>>
}

/** Tells whether the store answers right now, within a short time: what a readiness probe asks. */
export interface StoreHealth {
  readonly check: () => TE.TaskEither<StoreUnavailable, void>
}

/**
 * Adds pets at most once per API key and idempotency key, the pet and its record written together.
 * A key being performed elsewhere, even in another process, is refused at once, never waited for.
 */
export interface IdempotentPetCreations {
  /**
   * Adds and records the pet, unless an unexpired record of the key exists: then its pet if the
   * fingerprint matches, else `IdempotencyKeyReused`. A failure records nothing.
   */
  readonly addOnce: (
    creation: IdempotentCreation,
  ) => TE.TaskEither<StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused, Pet>
  /** Removes every record made before `before`, and says how many it removed. */
  readonly removeExpired: (before: Date) => TE.TaskEither<StoreUnavailable, number>
}

/**
 * Everything the service keeps, as one storage adapter (memory, PostgreSQL) provides it. Nothing
 * runs in the background before `start`, nor after `close`.
 */
export interface Storage {
  readonly pets: PetRepository
  readonly apiKeys: ApiKeyStore
  /** Who holds a key: first the keys given at its making (API_KEYS), then the stored ones. */
  readonly authenticator: Authenticator
  readonly usageLog: ApiKeyUsageLog
  readonly creations: IdempotentPetCreations
  readonly health: StoreHealth
  /** Starts what the storage runs in the background (such as hearing of revoked keys). */
  readonly start: () => Promise<void>
  /** Stops it, and releases what the storage holds (connections); calling it again does nothing. */
  readonly close: () => Promise<void>
}
