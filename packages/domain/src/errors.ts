import type { Issue } from './checked.js'
import type { PetId } from './pet.js'

/** Input that breaks an invariant of the domain; one issue per offending field. */
export type InvalidInput = { readonly _tag: 'InvalidInput'; readonly issues: ReadonlyArray<Issue> }
/** No pet has this id. */
export type PetNotFound = { readonly _tag: 'PetNotFound'; readonly id: PetId }
/** The operation has passed its sunset and is no longer served. */
export type Gone = { readonly _tag: 'Gone'; readonly operation: string; readonly sunset: Date }
/** The store cannot be reached, or did not answer in time; trying again later may work. */
export type StoreUnavailable = { readonly _tag: 'StoreUnavailable'; readonly cause?: unknown }

/** Every failure a caller of the domain can act on. Bugs are thrown, never returned. */
export type DomainError = InvalidInput | PetNotFound | Gone | StoreUnavailable

export const invalidInput = (issues: ReadonlyArray<Issue>): InvalidInput => ({ _tag: 'InvalidInput', issues })
export const petNotFound = (id: PetId): PetNotFound => ({ _tag: 'PetNotFound', id })
export const gone = (operation: string, sunset: Date): Gone => ({ _tag: 'Gone', operation, sunset })
export const storeUnavailable = (cause?: unknown): StoreUnavailable =>
  cause === undefined ? { _tag: 'StoreUnavailable' } : { _tag: 'StoreUnavailable', cause }
