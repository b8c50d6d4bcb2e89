import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../errors.js'
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency.js'
import type { Clock, IdempotentPetCreations } from '../ports.js'

/** The ports forgetExpiredCreations needs: the store of idempotent creations and the clock of the window. */
export type ForgetExpiredCreationsDeps = {
  readonly creations: IdempotentPetCreations
  readonly clock: Clock
}

/** Removes idempotency records older than 24 hours (never replayed, they only take room); says how many. */
export const forgetExpiredCreations =
  ({ creations, clock }: ForgetExpiredCreationsDeps) =>
  (): TE.TaskEither<StoreUnavailable, number> =>
    creations.removeExpired(new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS))
