import {
  IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type Pet,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type IdempotentCreation,
  type IdempotentPetCreations,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import { reportAs, type PostgresAdapterOptions } from './adapter-options.js'
import { CLEANUP_LOCK } from './advisory-locks.js'
import { lockTimeoutOf, preparedRunnerOn, runStatementOn } from './database-handles.js'
import { batchStatements, MAX_INSERT_BATCH } from './pet-inserts.js'
import type { Database } from './schema.js'
import { toPet } from './to-pet-id.js'
import type { Statement } from './statement.js'
import { storeCall, tryStore } from './unavailable.js'

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

type Answer = E.Either<IdempotencyKeyInUse | IdempotencyKeyReused, Pet>
// An element of the batch that needs a write, in a read-only transaction.
const READ_ONLY = 'read_only'
type Row = { readonly position: number; readonly answer: Answer | typeof READ_ONLY }

const IN_USE: Answer = E.left(idempotencyKeyInUse())

const toAnswer = (outcome: string | null, pet: ReadonlyArray<string | null>): Answer | typeof READ_ONLY => {
  if (outcome === 'in_use') return IN_USE
  if (outcome === 'reused') return E.left(idempotencyKeyReused())
  if (outcome === READ_ONLY) return READ_ONLY
  if (outcome !== 'created' && outcome !== 'replayed')
    throw new Error(`create_pets_once answered the outcome ${outcome}`)
  return E.right(toPet(pet))
}

// One statement per batch of creations, one round trip: the function of migration 0007 tries each
// key's lock, reads the records, and writes the pets and their records, all inside the server.
const createOnce: Statement<Row> = {
  text: `SELECT o_position AS position, outcome,
      o_id AS id, o_name AS name, o_category_id AS category_id, o_status AS status
    FROM create_pets_once($1::jsonb, $2::timestamptz, $3::bigint, $4::integer)`,
  columns: ['position', 'outcome', 'id', 'name', 'category_id', 'status'],
  decode: ([position, outcome, ...pet]) => ({ position: Number(position), answer: toAnswer(outcome!, pet) }),
}

// What create_pet_once raises for one creation alone; here it fails only the creations that needed
// a write, not the replays batched with them.
const refusesWrites = () =>
  Object.assign(
    new Error('cannot add a pet: the database accepts no writes now (transaction_read_only is on)'),
    { code: '25006' },
  )

type Waiting = {
  readonly creation: IdempotentCreation
  readonly ok: (answer: Answer) => void
  readonly fail: (error: unknown) => void
}

// The batch's elements, `[owner, key, fingerprint, name, category_id, status]`, in order.
const elementOf = ({ owner, key, fingerprint, pet }: IdempotentCreation) =>
  [owner, key, fingerprint, pet.name, pet.categoryId, pet.status] as const
const asJson = (batch: ReadonlyArray<Waiting>) => JSON.stringify(batch.map((w) => elementOf(w.creation)))

const windowOf = (creation: IdempotentCreation) => creation.at.getTime() - creation.expiredBefore.getTime()
// An idempotency key is printable ASCII, so the first line break ends it.
const keyOf = (creation: IdempotentCreation) => `${creation.key}\n${creation.owner}`

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

// Each creation answered with the row of its position: `ended` already let the next batch go.
const answer = (batch: ReadonlyArray<Waiting>, rows: ReadonlyArray<Row>) => {
  const byPosition = new Map(rows.map((row) => [row.position, row.answer]))
  batch.forEach((w, i) => {
    const found = byPosition.get(i + 1)
    if (found === undefined) w.fail(new Error('create_pets_once answered no row for one of its creations'))
    else if (found === READ_ONLY) w.fail(refusesWrites())
    else w.ok(found)
  })
}

/**
 * Idempotent additions on PostgreSQL, in batches as pet-inserts.ts gathers plain ones: the pets of
 * a batch and their records are written in one statement (the function `create_pets_once`), so no
 * lock is ever held while waiting for this client, and the ordering lock and the commit are paid
 * once per batch. A repeat while the first is being performed is told apart without waiting: in
 * this process, by the keys queued or under way; across processes, by a transaction-scoped advisory
 * lock on the API key and idempotency key. A failed statement fails every creation of its batch.
 * Records are dated by the database's clock unless told otherwise; expired ones are removed in
 * batches, by one instance at a time.
 */
export const createPostgresIdempotentPetCreations = (
  db: Kysely<Database>,
  options: PostgresIdempotentPetCreationsOptions = {},
): IdempotentPetCreations => {
  const byRequest = options.clock === 'request'
  const run = runStatementOn(db)
  const runPrepared = preparedRunnerOn(db)
  const lockTimeoutMs = String(options.lockTimeoutMs ?? lockTimeoutOf(db))
  const batchSize = options.cleanupBatchSize ?? 1000
  const onAddOnce = reportAs(options, 'creations.addOnce')
  const onRemoveExpired = reportAs(options, 'creations.removeExpired')
  const performing = new Set<string>()

  // One statement dates every record of its batch and reads them with one window: only creations
  // that agree on both go together (with the database's clock, all of them).
  const fits = ({ creation: a }: Waiting, { creation: b }: Waiting) =>
    windowOf(a) === windowOf(b) && (!byRequest || a.at.getTime() === b.at.getTime())
  const enqueue = batchStatements<Waiting>(
    MAX_INSERT_BATCH,
    (batch, ended) => {
      const first = batch[0]!.creation
      const at = byRequest ? first.at.toISOString() : null
      runPrepared(createOnce, [asJson(batch), at, String(windowOf(first)), lockTimeoutMs], (error, rows) => {
        ended()
        for (const w of batch) performing.delete(keyOf(w.creation))
        if (error !== undefined) for (const w of batch) w.fail(error)
        else answer(batch, rows)
      })
    },
    fits,
  )

  const removeBatch = async (before: Date) => {
    const values = [byRequest ? before : null, String(IDEMPOTENCY_WINDOW_MS), batchSize]
    const { rows } = await run<{ mine: boolean; removed: string }>(REMOVE_BATCH, values)
    return { mine: rows[0]?.mine === true, removed: Number(rows[0]?.removed ?? 0) }
  }

  return {
    addOnce: (creation) =>
      pipe(
        storeCall<Answer>((ok, fail) => {
          const key = keyOf(creation)
          // Queued or under way here: its statement has not ended, so this is a repeat meanwhile.
          if (performing.has(key)) return ok(IN_USE)
          performing.add(key)
          enqueue({ creation, ok, fail })
        }, onAddOnce),
        TE.flatMap(TE.fromEither),
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
