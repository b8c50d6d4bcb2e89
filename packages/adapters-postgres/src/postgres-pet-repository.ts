import type { Pet, PetRepository } from '@pets/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Compilable, Kysely } from 'kysely'
import { reportAs, type PostgresAdapterOptions } from './adapter-options.js'
import { PET_INSERT_LOCK } from './advisory-locks.js'
import { lockTimeoutOf, preparedRunnerOn } from './database-handles.js'
import { batchPetInserts } from './pet-inserts.js'
import type { Database } from './schema.js'
import type { Statement } from './statement.js'
import { toPet } from './to-pet-id.js'
import { storeCall, type TryStoreOptions } from './unavailable.js'

const columns = ['id', 'name', 'category_id', 'status'] as const

// CONTRACT: walking the `after` pages sees every pet exactly once, also while pets are added. An
// identity value is taken before its row commits, so two inserts may commit out of id order and a
// reader could pass an id whose row appears later. The transaction-scoped lock makes inserts take
// ids and commit one after the other: a visible id implies every smaller one is visible. One
// statement for a whole batch of creations (pet-inserts.ts), so the lock lives only inside the
// server and is never held while waiting for this client. Its lock_timeout is set first, in the
// same statement, so that a wait for the lock ends in bounded time even where the session's
// settings were dropped (a transaction pooler). The rows come as one JSON array, in order.
const INSERT = `WITH settings AS (SELECT set_config('lock_timeout', $1, true)),
  ordered AS (SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK}) FROM settings)
  INSERT INTO pets (name, category_id, status)
  SELECT row->>0, (row->>1)::bigint, row->>2
    FROM ordered, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS batch(row, position)
    ORDER BY position
  RETURNING id, name, category_id, status`

// Compiled once: kysely would build and compile the same text on every call (about 15 µs of a
// request, bench/RESULTS.md); only the values change, given in the order of the placeholders.
const textOf = (query: Compilable) => query.compile().sql

const petStatement = (text: string): Statement<Pet> => ({ text, columns, decode: toPet })

/**
 * A pet repository on PostgreSQL. Ids come from an identity column, so they strictly increase and
 * are never reused, also across concurrent inserts; a listing is a keyset page in id order.
 */
export const createPostgresPetRepository = (
  db: Kysely<Database>,
  options: PostgresAdapterOptions = {},
): PetRepository => {
  const lockTimeout = String(options.lockTimeoutMs ?? lockTimeoutOf(db))
  const [onAdd, onFind, onList] = ['pets.add', 'pets.findById', 'pets.list'].map((operation) =>
    reportAs(options, operation),
  )
  const run = preparedRunnerOn(db)
  // The statements, each with the values of its placeholders in order; one call each.
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
  const insert = petStatement(INSERT)
  const find = petStatement(textOf(pets.where('id', '=', '0')))
  const listAll = petStatement(textOf(pets.where('id', '>', '0').orderBy('id').limit(1)))
  // With a status, pets_status_id_idx (status, id) serves the page; without, the primary key.
  const listByStatus = petStatement(
    textOf(pets.where('status', '=', 'sold').where('id', '>', '0').orderBy('id').limit(1)),
  )
  const inserts = batchPetInserts(run, insert, lockTimeout)
  return {
    add: (pet) => storeCall<Pet>((ok, fail) => inserts(pet, ok, fail), onAdd),
    findById: (id) =>
      pipe(
        rowsOf(find, [String(id)], onFind),
        TE.map((rows) => O.fromNullable(rows[0])),
      ),
    list: ({ after, limit, status }) =>
      status === undefined
        ? rowsOf(listAll, [String(after), String(limit)], onList)
        : rowsOf(listByStatus, [status, String(after), String(limit)], onList),
  }
}
