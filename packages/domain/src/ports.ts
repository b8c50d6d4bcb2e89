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
  /**
   * The same answer without I/O, when memory alone decides it; `undefined` when only a lookup in
   * the store can. A caller limits lookups, never these answers. Without it, every key is a lookup.
   */
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

/**
 * Counts each API key's calls per operation, so that the callers of a deprecated operation can be
 * found, and told, before its sunset. Counts only grow; nothing here is ever a secret.
 */
export interface ApiKeyUsageLog {
  /**
   * Adds each entry's calls to its key's count for its operation, and moves the last call forward
   * (never back). Entries of the same key and operation may repeat; all of them count.
   */
  readonly add: (entries: ReadonlyArray<OperationCalls>) => TE.TaskEither<StoreUnavailable, void>
  /** Every key's counts, ordered by key id, then operation, as text. */
  readonly list: () => TE.TaskEither<StoreUnavailable, ReadonlyArray<OperationCalls>>
}

/** Tells whether the store answers right now, within a short time: what a readiness probe asks. */
export interface StoreHealth {
  readonly check: () => TE.TaskEither<StoreUnavailable, void>
}

/**
 * Adds pets at most once per API key and idempotency key, keeping a record of each addition (the
 * pet, the request's fingerprint, the instant) written together with the pet: all or nothing.
 * Also across processes on one store, a request whose key is being performed elsewhere is refused
 * at once, never made to wait.
 */
export interface IdempotentPetCreations {
  /**
   * Adds the pet and records it, unless an unexpired record of this key exists: then it gives that
   * record's pet when the fingerprint matches, else `IdempotencyKeyReused`. `IdempotencyKeyInUse`
   * while another request with this key is being performed. A failure records nothing.
   */
  readonly addOnce: (
    creation: IdempotentCreation,
  ) => TE.TaskEither<StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused, Pet>
  /** Removes every record made before `before`, and says how many it removed. */
  readonly removeExpired: (before: Date) => TE.TaskEither<StoreUnavailable, number>
}

/**
 * Everything the service keeps, behind its ports: what one storage adapter provides, whole. Each
 * storage module (in memory, PostgreSQL) returns one; the composition picks one by configuration.
 * Nothing runs in the background before `start`, and nothing after `close`.
 */
export interface Storage {
  readonly pets: PetRepository
  /** Issues, lists and revokes the stored keys. */
  readonly apiKeys: ApiKeyStore
  /**
   * Who holds a key, from everything this storage knows: the keys it was given at its making (such
   * as those of API_KEYS), then its stored ones; the key hashed once, memory first.
   */
  readonly authenticator: Authenticator
  readonly usageLog: ApiKeyUsageLog
  readonly creations: IdempotentPetCreations
  readonly health: StoreHealth
  /** Starts what the storage runs in the background (such as hearing of revoked keys). */
  readonly start: () => Promise<void>
  /** Stops it, and releases what the storage holds (connections); calling it again does nothing. */
  readonly close: () => Promise<void>
}
