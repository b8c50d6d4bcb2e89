import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../errors.js'
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency.js'
import type { Clock, IdempotentPetCreations } from '../ports.js'

export type ForgetExpiredCreationsDeps = {
  readonly creations: IdempotentPetCreations
  readonly clock: Clock
}

/**
 * Removes the records of idempotent additions older than 24 hours, so that the store stays
 * bounded; says how many it removed. Run it now and then: an expired record is never replayed
 * in between, it only takes room.
 */
export const forgetExpiredCreations =
  ({ creations, clock }: ForgetExpiredCreationsDeps) =>
  (): TE.TaskEither<StoreUnavailable, number> =>
    creations.removeExpired(new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS))
