import type { StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import type { Logger } from './log/logger.js'

/** The periodic removal of expired idempotency records, and the way to stop it. */
export type IdempotencyCleanup = {
  /** Runs one removal now (after the one under way, if any). */
  readonly runNow: () => Promise<void>
  /** Stops the timer and waits for a removal under way, so the pool can close after it. */
  readonly close: () => Promise<void>
}

export type IdempotencyCleanupOptions = {
  readonly forgetExpired: () => TaskEither<StoreUnavailable, number>
  readonly everyMs: number
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>
}

/**
 * Removes the records of Idempotency-Keys older than 24 hours at start and every `everyMs`; each process
 * runs it, and on PostgreSQL a lock lets one instance at a time remove. A failure is tried again next time.
 */
export const startIdempotencyCleanup = ({
  forgetExpired,
  everyMs,
  logger,
}: IdempotencyCleanupOptions): IdempotencyCleanup => {
  let running: Promise<void> = Promise.resolve()
  const once = async () => {
    try {
      const removed = await forgetExpired()()
      if (E.isLeft(removed))
        logger.warn('expired idempotency records not removed: the store is unavailable; tried again later')
      else if (removed.right > 0)
        logger.info({ removed: removed.right }, 'expired idempotency records removed')
    } catch (error) {
      logger.error({ err: error }, 'expired idempotency records not removed')
    }
  }
  const runNow = () => (running = running.then(once))
  void runNow()
  // The timer alone never keeps the process alive.
  const timer = setInterval(() => void runNow(), everyMs).unref()
  return {
    runNow,
    close: async () => {
      clearInterval(timer)
      await running
    },
  }
}
