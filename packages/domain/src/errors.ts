import type { Issue } from './checked.js'
import type { PetId } from './pet.js'

/** Input that breaks an invariant of the domain; one issue per offending field. */
export type InvalidInput = { readonly _tag: 'InvalidInput'; readonly issues: ReadonlyArray<Issue> }
/** No pet has this id. */
export type PetNotFound = { readonly _tag: 'PetNotFound'; readonly id: PetId }
/** The operation has passed its sunset and is no longer served. */
export type Gone = { readonly _tag: 'Gone'; readonly operation: string; readonly sunset: Date }
/** The store is unreachable or slow; with `refusesWrites`, it reads but refuses changes (failover). */
export type StoreUnavailable = {
  readonly _tag: 'StoreUnavailable'
  readonly cause?: unknown
  readonly refusesWrites?: true
  /**
   * What the store says of the failure (the call that failed, a SQLSTATE, …): fields for the log line of
   * whoever answers it, which knows the request; never for responses.
   */
  readonly details?: Readonly<Record<string, unknown>>
}
/** An earlier request with the same idempotency key (and API key) is still being performed. */
export type IdempotencyKeyInUse = { readonly _tag: 'IdempotencyKeyInUse' }
/** The idempotency key (of the same API key) was used before for a different request. */
export type IdempotencyKeyReused = { readonly _tag: 'IdempotencyKeyReused' }

/** Every failure a caller of the domain can act on. Bugs are thrown, never returned. */
export type DomainError =
  InvalidInput | PetNotFound | Gone | StoreUnavailable | IdempotencyKeyInUse | IdempotencyKeyReused

/** Makes an InvalidInput of its issues. */
export const invalidInput = (issues: ReadonlyArray<Issue>): InvalidInput => ({ _tag: 'InvalidInput', issues })
/** Makes a PetNotFound for an id. */
export const petNotFound = (id: PetId): PetNotFound => ({ _tag: 'PetNotFound', id })
/** Makes a Gone for an operation past its sunset. */
export const gone = (operation: string, sunset: Date): Gone => ({ _tag: 'Gone', operation, sunset })
/** Makes a StoreUnavailable, with the cause for logs (never for responses). */
export const storeUnavailable = (cause?: unknown): StoreUnavailable =>
  cause === undefined ? { _tag: 'StoreUnavailable' } : { _tag: 'StoreUnavailable', cause }

/** Makes the StoreUnavailable of a store that answers but refuses writes, with the cause for logs. */
export const storeRefusesWrites = (cause?: unknown): StoreUnavailable => ({
  ...storeUnavailable(cause),
  refusesWrites: true,
})
/** Makes an IdempotencyKeyInUse: a request with the same key is still running. */
export const idempotencyKeyInUse = (): IdempotencyKeyInUse => ({ _tag: 'IdempotencyKeyInUse' })
/** Makes an IdempotencyKeyReused: the key was used with another fingerprint (another body). */
export const idempotencyKeyReused = (): IdempotencyKeyReused => ({ _tag: 'IdempotencyKeyReused' })
