import type { ApiKeyId } from '@pets/domain'
import { sql, type Kysely } from 'kysely'
import { asError, type Database } from '../runner/index.js'

/** A write of `last_used_at` failed (its `cause` says why): the uses it held are dropped, written again at the next. */
export class LastUsedNotWrittenError extends Error {
  override readonly name = 'LastUsedNotWrittenError'
}

/** Records the uses of keys in memory, and writes them to `api_keys.last_used_at` in the background. */
export type LastUsedWriter = {
  /** Notes a use; never waits, never fails. */
  readonly record: (id: ApiKeyId, at: Date) => void
  /** Writes every use recorded so far; resolves (never rejects) once written or reported. */
  readonly flush: () => Promise<void>
  /** Writes what is left, and records nothing more. */
  readonly close: () => Promise<void>
}

/** How the writer writes, and whom it tells of a write that failed. */
export type LastUsedWriterOptions = {
  readonly onError: (error: Error) => void
  /** How long after a use it is written (with any others that come meanwhile); 1000 ms unless given. */
  readonly flushAfterMs?: number
}

/** last_used_at is written at most this often per key, so a busy key costs no write per request. */
export const TOUCH_EVERY_MS = 60_000

/**
 * A writer of `last_used_at`: at most one write per key and minute here, and a row written only when over a
 * minute older than the use, so no process moves another's back. A failed write is reported and dropped.
 */
export const createLastUsedWriter = (
  db: Kysely<Database>,
  options: LastUsedWriterOptions,
): LastUsedWriter => {
  const flushAfterMs = options.flushAfterMs ?? 1000
  // The last use of each key that was (or is being) written, in ms; and the uses not yet written.
  const written = new Map<ApiKeyId, number>()
  let pending = new Map<ApiKeyId, Date>()
  let timer: NodeJS.Timeout | undefined
  let queue: Promise<void> = Promise.resolve()
  let closed = false

  const write = async (): Promise<void> => {
    if (pending.size === 0) return
    const batch = [...pending].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))
    pending = new Map()
    try {
      await sql`
        UPDATE api_keys SET last_used_at = used.at
        FROM unnest(${batch.map(([id]) => id)}::int8[], ${batch.map(([, at]) => at.toISOString())}::timestamptz[])
          AS used(id, at)
        WHERE api_keys.id = used.id
          AND (api_keys.last_used_at IS NULL
            OR api_keys.last_used_at < used.at - make_interval(secs => ${TOUCH_EVERY_MS / 1000}))`.execute(db)
    } catch (error) {
      // Forget these uses, so that each key's next use is written again.
      for (const [id, at] of batch) if (written.get(id) === at.getTime()) written.delete(id)
      options.onError(
        new LastUsedNotWrittenError('Could not write when API keys were last used', {
          cause: asError(error),
        }),
      )
    }
  }
  const flush = (): Promise<void> => {
    clearTimeout(timer)
    timer = undefined
    queue = queue.then(write)
    return queue
  }

  return {
    record: (id, at) => {
      if (closed) return
      const last = written.get(id)
      if (last !== undefined && at.getTime() - last <= TOUCH_EVERY_MS) return
      written.set(id, at.getTime())
      pending.set(id, at)
      if (timer === undefined) {
        timer = setTimeout(() => void flush(), flushAfterMs)
        timer.unref()
      }
    },
    flush,
    close: () => {
      closed = true
      return flush()
    },
  }
}
