import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiKeyId, ApiKeyName, ApiKeyOwner, ApiKeyRecord, IssuedApiKey } from './api-key.js'
import type { StoreUnavailable } from './errors.js'
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
