import type { ApiKeyUsageLog, OperationCalls } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'

/** Counts calls per API key and operation in memory, and writes them to the usage log in batches. */
export type UsageCounter = {
  /** Counts one call; costs a map update, never a query. */
  readonly count: (keyId: string, operation: string) => void
  /** Writes what was counted; on failure it is kept and tried again with the next batch. */
  readonly flush: () => Promise<void>
  /** Stops the timer and writes what is left; what cannot be written then is lost, and logged. */
  readonly close: () => Promise<void>
}

export type UsageCounterOptions = {
  readonly log: ApiKeyUsageLog
  readonly flushEveryMs: number
  readonly logger: {
    /** Says that counts are written again after writes failed; silent unless given. */
    readonly info?: ((fields: object, message: string) => void) | undefined
    readonly warn: (fields: object, message: string) => void
    readonly error: (fields: object, message: string) => void
  }
  readonly now?: (() => number) | undefined
}

// 42P01 undefined_table: the schema is behind this version (MIGRATE_ON_START=false on a database not yet
// migrated; the service stops once its schema check finds it). The operator's to mend, not a bug: no stack.
const UNDEFINED_TABLE = '42P01'
const NO_TABLE = 'their table does not exist (the schema is behind this version: run "animal-store migrate")'
const missingTable = (error: unknown) => (error as { code?: unknown } | null)?.code === UNDEFINED_TABLE

type Failure = 'unavailable' | 'no table' | 'error'
const LOST: Record<Failure, string> = {
  unavailable: 'the store did not take them (unreachable, or too busy within its timeouts)',
  'no table': NO_TABLE,
  error: 'writing them failed (the error is logged above)',
}

/**
 * Batches API-key usage so a request costs no write: one upsert per interval, whatever the traffic. A crash
 * loses at most one interval (and what was counted while the store was down); a clean shutdown writes it.
 */
export const createUsageCounter = ({
  log,
  flushEveryMs,
  logger,
  now = Date.now,
}: UsageCounterOptions): UsageCounter => {
  let pending = new Map<string, { keyId: string; operation: string; calls: number; last: number }>()
  let writing: Promise<void> = Promise.resolve()
  // Why the last write failed, if it did: what the line of counts lost at shutdown says. A run of writes that
  // fail alike is one line (the first), not one an interval: an outage of PostgreSQL has lines of its own.
  let failure: Failure | undefined
  let failedWrites = 0

  const write = async () => {
    if (pending.size === 0) return
    const batch: ReadonlyArray<OperationCalls> = [...pending.values()].map((c) => ({
      keyId: c.keyId,
      operation: c.operation,
      calls: c.calls,
      lastCalledAt: new Date(c.last),
    }))
    pending = new Map()
    const before = failure
    try {
      failure = E.isRight(await log.add(batch)()) ? undefined : 'unavailable'
      if (failure !== undefined && failure !== before)
        logger.warn(
          { entries: batch.length },
          'usage counts not written: the store is unavailable; kept for the next try',
        )
    } catch (error) {
      failure = missingTable(error) ? 'no table' : 'error'
      if (failure === 'no table' && before !== 'no table')
        logger.warn(
          { entries: batch.length, sqlstate: UNDEFINED_TABLE },
          `usage counts not written: ${NO_TABLE}; kept for the next try`,
        )
      // A bug says so each time.
      else if (failure === 'error')
        logger.error({ err: error }, 'usage counts not written: kept for the next try')
    }
    if (failure === undefined) {
      if (failedWrites > 0) logger.info?.({ failedWrites }, 'usage counts written again')
      failedWrites = 0
      return
    }
    failedWrites++
    for (const c of batch) add(c.keyId, c.operation, c.calls, c.lastCalledAt.getTime())
  }
  const add = (keyId: string, operation: string, calls: number, last: number) => {
    const key = `${keyId}\u0000${operation}`
    const seen = pending.get(key)
    if (seen === undefined) pending.set(key, { keyId, operation, calls, last })
    else {
      seen.calls += calls
      if (last > seen.last) seen.last = last
    }
  }
  // One write at a time: a slow store must not pile up concurrent upserts of the same rows.
  const flush = () => (writing = writing.then(write))
  const timer = setInterval(() => void flush(), flushEveryMs)
  timer.unref()

  return {
    count: (keyId, operation) => add(keyId, operation, 1, now()),
    flush,
    close: async () => {
      clearInterval(timer)
      await flush()
      const lost = [...pending.values()].reduce((sum, c) => sum + c.calls, 0)
      if (lost > 0)
        logger.warn({ calls: lost }, `usage counts lost at shutdown: ${LOST[failure ?? 'unavailable']}`)
      pending = new Map()
    },
  }
}
