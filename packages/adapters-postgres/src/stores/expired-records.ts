import { IDEMPOTENCY_WINDOW_MS } from '@pets/domain'
import { CLEANUP_LOCK } from './advisory-locks.js'
import type { RunPrepared, Statement } from '../runner/index.js'

// One batch: the oldest expired records, at most $3, removed only by the instance that got the cleanup lock
// (tried, never waited for). The DELETE checks created_at again, so a record replaced meanwhile stays.
const REMOVE_BATCH: Statement<{ readonly mine: boolean; readonly removed: number }> = {
  text: `WITH turn AS (SELECT pg_try_advisory_xact_lock(${CLEANUP_LOCK}) AS mine),
  cut AS (SELECT coalesce($1::timestamptz, now() - $2::bigint * interval '1 millisecond') AS before),
  gone AS (
    DELETE FROM idempotency_records r
    USING (
      SELECT api_key_id, idempotency_key FROM idempotency_records
      WHERE (SELECT mine FROM turn) AND created_at < (SELECT before FROM cut)
      ORDER BY created_at LIMIT $3
    ) AS old
    WHERE r.api_key_id = old.api_key_id AND r.idempotency_key = old.idempotency_key
      AND r.created_at < (SELECT before FROM cut)
    RETURNING 1),
  -- The slots of insert intents unused for an hour (a process that ended): a live one comes back.
  idle AS (
    DELETE FROM pet_insert_intents
    WHERE (SELECT mine FROM turn) AND intent IS NULL AND expires_at < now() - interval '1 hour')
  SELECT (SELECT mine FROM turn) AS mine, (SELECT count(*) FROM gone) AS removed`,
  columns: ['mine', 'removed'],
  decode: ([mine, removed]) => ({ mine: mine === 't', removed: Number(removed) }),
}

/**
 * Removes the records made before `before` (null: older than IDEMPOTENCY_WINDOW_MS by the database's clock)
 * in short batches, so that a backlog never meets the statement timeout, until one comes back short.
 */
export const removeExpiredRecords = async (
  run: RunPrepared,
  before: Date | null,
  batchSize: number,
): Promise<number> => {
  const values = [before?.toISOString() ?? null, String(IDEMPOTENCY_WINDOW_MS), String(batchSize)]
  const batch = () =>
    new Promise<{ readonly mine: boolean; readonly removed: number }>((resolve, reject) =>
      run(REMOVE_BATCH, values, (error, rows) =>
        error === undefined ? resolve(rows[0] ?? { mine: false, removed: 0 }) : reject(error),
      ),
    )
  let total = 0
  for (;;) {
    const { mine, removed } = await batch()
    total += removed
    if (!mine || removed < batchSize) return total
  }
}
