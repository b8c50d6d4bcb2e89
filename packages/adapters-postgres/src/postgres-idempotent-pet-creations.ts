import {
  IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type Pet,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type IdempotentPetCreations,
  type PetName,
  type PetStatus,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import { reportAs, type PostgresAdapterOptions } from './adapter-options.js'
import { lockTimeoutOf, runStatementOn } from './create-postgres-database.js'
import type { Database } from './schema.js'
import { toCategoryId, toPetId } from './to-pet-id.js'
import { tryStore } from './unavailable.js'

/** Options of the idempotent creations on PostgreSQL. */
export type PostgresIdempotentPetCreationsOptions = PostgresAdapterOptions & {
  /**
   * Whose clock dates the records and tells when they expire. `database` (the default): PostgreSQL's
   * `now()`, one clock for every instance however skewed theirs are; the request's `at` is then
   * ignored, its window (`at - expiredBefore`) kept, and `removeExpired` removes the records older
   * than IDEMPOTENCY_WINDOW_MS by that clock, whatever `before` it is given. `request`: the instants
   * the caller gives (`at`, `expiredBefore`, `before`), for a service whose clock was moved on
   * purpose (CLOCK_NOW) and for tests.
   */
  readonly clock?: 'database' | 'request'
  /** Records removed per statement by `removeExpired`; 1000 unless given. */
  readonly cleanupBatchSize?: number
}

type Outcome = 'created' | 'replayed' | 'reused' | 'in_use'
type Row = {
  readonly outcome: Outcome
  readonly id: string | null
  readonly name: string | null
  readonly category_id: string | null
  readonly status: PetStatus | null
}

// One statement, one round trip: the function of migration 0006 tries the key's lock, reads the
// record, and writes the pet and its record, all inside the server.
const CREATE_ONCE = `SELECT outcome, o_id AS id, o_name AS name, o_category_id AS category_id, o_status AS status
  FROM create_pet_once($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// Any fixed int8 that nothing else takes: the migrations use 4_242_000_001, pet inserts 4_242_000_002.
export const CLEANUP_LOCK = 4_242_000_003

// One batch: the oldest expired records, at most $3, by the index on created_at, removed only by
// the instance that holds the cleanup lock for this transaction (tried, never waited for: another
// instance's turn is simply skipped). A record replaced meanwhile has a new created_at, and the
// DELETE checks it again, so a fresh record is never removed.
const REMOVE_BATCH = `WITH turn AS (SELECT pg_try_advisory_xact_lock(${CLEANUP_LOCK}) AS mine),
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
    RETURNING 1)
  SELECT (SELECT mine FROM turn) AS mine, (SELECT count(*) FROM gone) AS removed`

const toOutcome = (row: Row | undefined): E.Either<IdempotencyKeyInUse | IdempotencyKeyReused, Pet> => {
  if (row === undefined) throw new Error('create_pet_once answered no row')
  if (row.outcome === 'in_use') return E.left(idempotencyKeyInUse())
  if (row.outcome === 'reused') return E.left(idempotencyKeyReused())
  return E.right({
    id: toPetId(row.id ?? ''),
    // It was a PetName when it was stored, and the table's CHECK keeps its length within bounds.
    name: row.name as PetName,
    categoryId: toCategoryId(row.category_id ?? ''),
    status: row.status as PetStatus,
  })
}

/**
 * Idempotent additions on PostgreSQL: the pet and its record are written in one statement (the
 * function `create_pet_once`), so no lock is ever held while waiting for this client, and a repeat
 * while the first is being performed is told apart, without waiting, by a transaction-scoped
 * advisory lock on the API key and idempotency key. Holds across processes. Records are dated by
 * the database's clock unless told otherwise; expired ones are removed in batches, by one instance
 * at a time.
 */
export const createPostgresIdempotentPetCreations = (
  db: Kysely<Database>,
  options: PostgresIdempotentPetCreationsOptions = {},
): IdempotentPetCreations => {
  const byRequest = options.clock === 'request'
  const run = runStatementOn(db)
  const lockTimeoutMs = options.lockTimeoutMs ?? lockTimeoutOf(db)
  const batchSize = options.cleanupBatchSize ?? 1000
  const onAddOnce = reportAs(options, 'creations.addOnce')
  const onRemoveExpired = reportAs(options, 'creations.removeExpired')

  const removeBatch = async (before: Date) => {
    const values = [byRequest ? before : null, String(IDEMPOTENCY_WINDOW_MS), batchSize]
    const { rows } = await run<{ mine: boolean; removed: string }>(REMOVE_BATCH, values)
    return { mine: rows[0]?.mine === true, removed: Number(rows[0]?.removed ?? 0) }
  }

  return {
    addOnce: (creation) =>
      pipe(
        tryStore(async () => {
          const values = [
            creation.owner,
            creation.key,
            creation.fingerprint,
            creation.pet.name,
            String(creation.pet.categoryId),
            creation.pet.status,
            byRequest ? creation.at : null,
            String(creation.at.getTime() - creation.expiredBefore.getTime()),
            lockTimeoutMs,
          ]
          const { rows } = await run<Row>(CREATE_ONCE, values)
          return rows[0]
        }, onAddOnce),
        TE.flatMap((row) => TE.fromEither(toOutcome(row))),
      ),
    // Batch after batch, each its own short transaction, until one comes back short: a large
    // backlog never makes one statement run into the statement timeout.
    removeExpired: (before) =>
      tryStore(async () => {
        let total = 0
        for (;;) {
          const { mine, removed } = await removeBatch(before)
          total += removed
          if (!mine || removed < batchSize) return total
        }
      }, onRemoveExpired),
  }
}
