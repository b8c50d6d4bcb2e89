import type { Pet, PetStatus } from '@pets/domain'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Sleep } from './abortable.js'
import type { PetsClientError } from './client-errors.js'
import type { RetryOptions } from './retry-bounds.js'

/** The query of a listing; the service checks it (limit 1 to 100, default 20). */
export type ListPetsQuery = {
  readonly limit?: number | undefined
  readonly status?: PetStatus | undefined
  readonly after?: number | undefined
}
/** The `next` link of a page: pass it to `listPets` for the page after. */
export type PageLink = { readonly href: string }
/** One page of pets, in id order, and the link to the next page when more pets match. */
export type PetsPage = { readonly pets: ReadonlyArray<Pet>; readonly next: PageLink | undefined }
/** A pet to add; the service checks it and defaults `status` to `available` (undefined: left out, as JSON has no undefined). */
export type NewPetInput = {
  readonly name: string
  readonly categoryId: number
  readonly status?: PetStatus | undefined
}

/** What every operation takes last. */
export type CallOptions = {
  /** Ends the call once aborted, in an attempt or in a wait between attempts: an `Aborted` Left. */
  readonly signal?: AbortSignal | undefined
}

/** How createPet may be retried, and its signal. */
export type CreatePetOptions = CallOptions & {
  /** Sends a new Idempotency-Key (a UUID), so that a 503, a 409 or a lost response is retried safely. */
  readonly safeRetries?: boolean | undefined
  /** Your own Idempotency-Key (1 to 255 printable ASCII characters); implies safe retries. */
  readonly idempotencyKey?: string | undefined
}

/** Where the service is and how to reach it; an option given as undefined is its default, as an absent one. */
export type PetsClientOptions = {
  /** The URL of the API, ending in its version segment, such as `https://pets.internal/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <apiKey>`, and only to the origin of `baseUrl`. */
  readonly apiKey: string
  readonly retry?: RetryOptions | undefined
  /** How long one attempt may take before it is a NetworkFailure: 1 to 2147483647 ms (no "none"). Default 30000. */
  readonly timeoutMs?: number | undefined
  /** The fetch to use; the global one by default. */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** How to wait between attempts (sooner when `signal` aborts); tests pass one that does not wait. */
  readonly sleep?: Sleep | undefined
}

/**
 * The operations of the animal store, each a `TaskEither` to run (`await client.listPets()()`).
 * Nothing is thrown, except by `allPets`, which throws a `PetsClientFailure`, and by `listPets` given a page
 * link that is no URL, which throws a `TypeError` before anything is sent.
 */
export interface PetsClient {
  /** One page of pets: from a query, or from the `next` link of the page before. */
  readonly listPets: (
    query?: ListPetsQuery | PageLink,
    options?: CallOptions,
  ) => TE.TaskEither<PetsClientError, PetsPage>
  /** Every pet that matches, in id order, following the `next` links page after page. */
  readonly allPets: (
    query?: Omit<ListPetsQuery, 'after'>,
    options?: CallOptions,
  ) => AsyncIterableIterator<Pet>
  /** Adds a pet. Running the task again retries with the same Idempotency-Key, if it has one. */
  readonly createPet: (pet: NewPetInput, options?: CreatePetOptions) => TE.TaskEither<PetsClientError, Pet>
  /** @deprecated The service removes getPet on 5 December 2030 (then: Gone); use listPets with a status. */
  readonly getPet: (id: number, options?: CallOptions) => TE.TaskEither<PetsClientError, Pet>
}
