import type { Pet, PetName, PetRepository } from '@pets/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import type { Database, PetRow } from './schema.js'
import { toCategoryId, toPetId } from './to-pet-id.js'
import { tryStore } from './unavailable.js'

const columns = ['id', 'name', 'category_id', 'status'] as const

const toPet = (row: Pick<PetRow, (typeof columns)[number]>): Pet => ({
  id: toPetId(row.id),
  // It was a PetName when it was stored, and the table's CHECK keeps its length within bounds.
  name: row.name as PetName,
  categoryId: toCategoryId(row.category_id),
  status: row.status,
})

/**
 * A pet repository on PostgreSQL. Ids come from an identity column, so they strictly increase and
 * are never reused, also across concurrent inserts; a listing is a keyset page in id order.
 */
export const createPostgresPetRepository = (db: Kysely<Database>): PetRepository => ({
  add: (pet) =>
    pipe(
      tryStore(() =>
        db
          .insertInto('pets')
          .values({ name: pet.name, category_id: String(pet.categoryId), status: pet.status })
          .returning(columns)
          .executeTakeFirstOrThrow(),
      ),
      TE.map(toPet),
    ),
  findById: (id) =>
    pipe(
      tryStore(() => db.selectFrom('pets').select(columns).where('id', '=', String(id)).executeTakeFirst()),
      TE.map((row) => pipe(O.fromNullable(row), O.map(toPet))),
    ),
  list: ({ after, limit, status }) =>
    pipe(
      // With a status, pets_status_id_idx (status, id) serves the page; without, the primary key.
      tryStore(() =>
        (status === undefined ? db.selectFrom('pets') : db.selectFrom('pets').where('status', '=', status))
          .select(columns)
          .where('id', '>', String(after))
          .orderBy('id')
          .limit(limit)
          .execute(),
      ),
      TE.map((rows) => rows.map(toPet)),
    ),
})
