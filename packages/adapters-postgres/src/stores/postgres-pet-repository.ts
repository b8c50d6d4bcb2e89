import type { Pet, PetRepository } from '@pets/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Compilable } from 'kysely'
import {
  intentLifetimeOf,
  type PostgresAdapterOptions,
  type PostgresHandle,
  readAs,
  reportAs,
  type Statement,
  storeCall,
  type TryStoreOptions,
} from '../runner/index.js'
import { PET_INSERT_LOCK } from './advisory-locks.js'
import { orderingLockAlone } from './callers-lock-timeout.js'
import { CLAIM_AND_RENEW, listBelowHorizon, RELEASE_INTENT } from './insert-intents.js'
import { batchPetInserts, batchPetInsertsAlone } from './pet-inserts.js'
import { toPet } from './to-pet-id.js'

const columns = ['id', 'name', 'category_id', 'status'] as const

// One statement per batch (pet-inserts.ts): it claims its intent and registers the next (insert-intents.ts),
// adding nothing if its intent expired. The ordering lock is taken shared, so the previous version's inserts
// (which take it alone) exclude these during a rolling deploy; the lock timeout is set in the statement.
const insertText = (ordered: string) => `WITH settings AS (SELECT set_config('lock_timeout', $1, true)),
  ${ordered}
  INSERT INTO pets (name, category_id, status)
  SELECT row->>0, (row->>1)::bigint, row->>2
    FROM ordered, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS batch(row, position)
    ORDER BY position
  RETURNING id, name, category_id, status`
const INSERT = insertText(`claimed AS (${CLAIM_AND_RENEW}),
  ordered AS (SELECT pg_advisory_xact_lock_shared(${PET_INSERT_LOCK}) FROM settings, claimed)`)
// The ordering lock alone (orderingLockAlone): in a caller's transaction it holds every other insert off until
// that transaction ends.
const INSERT_ALONE = insertText(`ordered AS (SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK}) FROM settings)`)

// Compiled once, here: a call sends only its values.
const textOf = (query: Compilable) => query.compile().sql

const petStatement = (text: string): Statement<Pet> => ({ text, columns, decode: toPet })

/**
 * A pet repository on PostgreSQL. Ids come from an identity column, so they strictly increase and
 * are never reused, also across concurrent inserts; a listing is a keyset page in id order.
 */
export const createPostgresPetRepository = (
  { db, runner }: PostgresHandle,
  options: PostgresAdapterOptions = {},
): PetRepository => {
  const lockTimeout = String(options.lockTimeoutMs ?? runner.lockTimeoutMs)
  const onAdd = reportAs(options, 'pets.add', db)
  const [onFind, onList] = [readAs(options, 'pets.findById', db), readAs(options, 'pets.list', db)]
  const run = runner.runPrepared
  const rowsOf = (
    statement: Statement<Pet>,
    values: ReadonlyArray<string | null>,
    reporting?: TryStoreOptions,
  ) =>
    storeCall<Array<Pet>>(
      (ok, fail) => run(statement, values, (error, rows) => (error === undefined ? ok(rows) : fail(error))),
      reporting,
    )
  const pets = db.selectFrom('pets').select(columns)
  const find = petStatement(textOf(pets.where('id', '=', '0')))
  const lifetimeMs = intentLifetimeOf(runner)
  const pair = runner.runPreparedAfter
  const alone = orderingLockAlone(db, options, run)
  const inserts =
    alone !== undefined
      ? batchPetInsertsAlone(alone, petStatement(INSERT_ALONE), lockTimeout)
      : batchPetInserts(
          pair,
          run,
          { insert: petStatement(INSERT), release: RELEASE_INTENT },
          lockTimeout,
          lifetimeMs,
        )
  const list: PetRepository['list'] = ({ after, limit, status }) =>
    storeCall<Array<Pet>>(
      (ok, fail) =>
        listBelowHorizon(run, [status ?? null, String(after), String(limit)], lifetimeMs, (error, found) =>
          error === undefined ? ok(found) : fail(error),
        ),
      onList,
    )
  return {
    add: (pet) => storeCall<Pet>((ok, fail) => inserts(pet, ok, fail), onAdd),
    findById: (id) =>
      pipe(
        rowsOf(find, [String(id)], onFind),
        TE.map((rows) => O.fromNullable(rows[0])),
      ),
    list,
  }
}
