import type { Span } from '@opentelemetry/api'
import type { IdempotentCreation, IdempotentPetCreations } from '@pets/domain'
import { randomUUID } from 'node:crypto'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as E from 'fp-ts/lib/Either.js'
import {
  intentLifetimeOf,
  type PostgresAdapterOptions,
  type PostgresHandle,
  reportAs,
  sqlstateOf,
  type SpanTarget,
  type Statement,
  storeCall,
  tryStore,
} from '../runner/index.js'
import { REGISTER_INTENT } from './insert-intents.js'
import { removeExpiredRecords } from './expired-records.js'
import { orderingLockAlone } from './callers-lock-timeout.js'
import { batchStatements, carry, delivered, MAX_INSERT_BATCH } from './pet-inserts.js'
import { type Answer, type Ending, IN_USE, repeatsUnderWay, REUSED } from './repeats-under-way.js'
import { toPet } from './to-pet-id.js'

/** Options of the idempotent creations on PostgreSQL. */
export type PostgresIdempotentPetCreationsOptions = PostgresAdapterOptions & {
  /**
   * Whose clock dates the records: `database` (the default: one clock for every instance; the request's `at`
   * is ignored, its window kept) or `request` (the caller's instants: CLOCK_NOW, tests).
   */
  readonly clock?: 'database' | 'request' | undefined
  /** Records removed per statement by `removeExpired`; 1000 unless given. */
  readonly cleanupBatchSize?: number | undefined
}

// An element of the batch that needs a write, in a read-only transaction.
const READ_ONLY = 'read_only'
type Row = { readonly position: number; readonly ending: Ending | typeof READ_ONLY }

const toEnding = (outcome: string | null, pet: ReadonlyArray<string | null>): Ending | typeof READ_ONLY => {
  if (outcome === 'in_use') return { outcome, answer: IN_USE }
  if (outcome === 'reused') return { outcome, answer: REUSED }
  if (outcome === READ_ONLY) return READ_ONLY
  if (outcome !== 'created' && outcome !== 'replayed')
    throw new Error(`create_pets_once answered the outcome ${outcome}`)
  return { outcome, answer: E.right(toPet(pet)) }
}

// One statement per batch after its intent (insert-intents.ts): migration 0009's function claims it, tries
// each key's lock, reads the records, and writes the pets and records, inside the server.
const createOnceWith = (call: string): Statement<Row> => ({
  text: `SELECT o_position AS position, outcome,
      o_id AS id, o_name AS name, o_category_id AS category_id, o_status AS status
    FROM ${call}`,
  columns: ['position', 'outcome', 'id', 'name', 'category_id', 'status'],
  decode: ([position, outcome, ...pet]) => ({ position: Number(position), ending: toEnding(outcome!, pet) }),
})
const createOnce = createOnceWith(
  'create_pets_once_claimed($5::uuid, $6::uuid, $1::jsonb, $2::timestamptz, $3::bigint, $4::integer)',
)
// In a caller's transaction, an intent would be seen by no one before it commits: the function of
// migration 0007 takes the ordering lock alone instead (as postgres-pet-repository.ts explains).
const createOnceAlone = createOnceWith(
  'create_pets_once($1::jsonb, $2::timestamptz, $3::bigint, $4::integer)',
)

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
  readonly span: Span | undefined
}

const elementOf = ({ owner, key, fingerprint, pet }: IdempotentCreation) =>
  [owner, key, fingerprint, pet.name, pet.categoryId, pet.status] as const
const asJson = (batch: ReadonlyArray<Waiting>) => JSON.stringify(batch.map((w) => elementOf(w.creation)))

const windowOf = (creation: IdempotentCreation) => creation.at.getTime() - creation.expiredBefore.getTime()
// An idempotency key is printable ASCII, so the first line break ends it.
const keyOf = (creation: IdempotentCreation) => `${creation.key}\n${creation.owner}`

// Each creation's ending, by the row of its position.
const endingsOf = (batch: ReadonlyArray<Waiting>, rows: ReadonlyArray<Row>): Array<Ending> => {
  const byPosition = new Map(rows.map((row) => [row.position, row.ending]))
  return batch.map((_, i) => {
    const found = byPosition.get(i + 1)
    if (found === undefined)
      return {
        outcome: 'failed',
        error: new Error('create_pets_once answered no row for one of its creations'),
      }
    return found === READ_ONLY ? { outcome: 'failed', error: refusesWrites() } : found
  })
}

/**
 * Idempotent additions on PostgreSQL, batched as pet-inserts.ts batches plain ones. A repeat while the first
 * is performed is `in use`: in this process once the first ended as a creation (repeats-under-way.ts),
 * across processes by an advisory lock on owner and key (a replay answers from the record). Expired records
 * are removed in batches, by one instance at a time.
 */
export const createPostgresIdempotentPetCreations = (
  { db, runner }: PostgresHandle,
  options: PostgresIdempotentPetCreationsOptions = {},
): IdempotentPetCreations => {
  const byRequest = options.clock === 'request'
  const runPrepared = runner.runPrepared
  const runPair = runner.runPreparedAfter
  const lifetime = String(intentLifetimeOf(runner))
  // One batch under way at a time: one slot, a fresh intent in it for each batch.
  const slot = randomUUID()
  const lockTimeoutMs = String(options.lockTimeoutMs ?? runner.lockTimeoutMs)
  const batchSize = options.cleanupBatchSize ?? 1000
  const onAddOnce = reportAs(options, 'creations.addOnce', db)
  const onRemoveExpired = reportAs(options, 'creations.removeExpired', db)
  const underWay = repeatsUnderWay()
  const alone = orderingLockAlone(db, options, runPrepared)

  // One statement dates every record of its batch and reads them with one window: only creations
  // that agree on both go together (with the database's clock, all of them).
  const fits = ({ creation: a }: Waiting, { creation: b }: Waiting) =>
    windowOf(a) === windowOf(b) && (!byRequest || a.at.getTime() === b.at.getTime())
  const enqueue = batchStatements<Waiting>(
    MAX_INSERT_BATCH,
    (batch, ended) => {
      const first = batch[0]!.creation
      const at = byRequest ? first.at.toISOString() : null
      const values = [asJson(batch), at, String(windowOf(first)), lockTimeoutMs]
      const answered = (error: Error | undefined, rows: ReadonlyArray<Row>, on?: SpanTarget) => {
        delivered(batch, error, on)
        ended()
        const endings = error === undefined ? endingsOf(batch, rows) : undefined
        batch.forEach((w, i) => {
          const ending = endings?.[i] ?? { outcome: 'failed', error }
          const answerRepeats = underWay.ended(keyOf(w.creation), w.creation.fingerprint, ending)
          if (ending.outcome === 'failed') w.fail(ending.error)
          else w.ok(ending.answer)
          answerRepeats()
        })
      }
      if (alone !== undefined) return alone(createOnceAlone, values, answered)
      const intent = randomUUID()
      runPair(
        REGISTER_INTENT,
        [slot, intent, lifetime],
        createOnce,
        [...values, slot, intent],
        (error, rows, on) => {
          // A read-only store takes no intent: the batch still answers its replays, and the
          // creations that need a write are `read_only`.
          if (sqlstateOf(error) === '25006') runPrepared(createOnce, [...values, null, null], answered)
          else answered(error, rows, on)
        },
      )
    },
    fits,
  )

  return {
    addOnce: (creation) => {
      const start = (ok: (answer: Answer) => void, fail: (error: unknown) => void): void => {
        const again = () => start(ok, fail)
        // Queued or under way here: this repeat is answered by how that one ends.
        if (underWay.waits(keyOf(creation), { fingerprint: creation.fingerprint, ok, fail, again })) return
        enqueue({ creation, ok, fail, span: carry(createOnce) })
      }
      return pipe(storeCall<Answer>(start, onAddOnce), TE.flatMap(TE.fromEither))
    },
    removeExpired: (before) =>
      tryStore(
        () => removeExpiredRecords(runPrepared, byRequest ? before : null, batchSize),
        onRemoveExpired,
      ),
  }
}
