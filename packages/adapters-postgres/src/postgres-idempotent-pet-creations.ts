import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type CreatedOnce,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type IdempotentCreation,
  type IdempotentPetCreations,
  type PetName,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql, type Kysely, type Transaction } from 'kysely'
import { createPostgresPetRepository } from './postgres-pet-repository.js'
import type { Database } from './schema.js'
import { toCategoryId, toPetId } from './to-pet-id.js'
import { tryStore } from './unavailable.js'

type Outcome = E.Either<IdempotencyKeyInUse | IdempotencyKeyReused, CreatedOnce>

// An idempotency key is printable ASCII, so the first line break ends it and the name is unambiguous.
const lockName = ({ key, owner }: IdempotentCreation) => `pets.idempotency\n${key}\n${owner}`

const findRecord = (trx: Transaction<Database>, creation: IdempotentCreation) =>
  trx
    .selectFrom('idempotency_records as r')
    .innerJoin('pets as p', 'p.id', 'r.pet_id')
    .select(['r.fingerprint', 'p.id', 'p.name', 'p.category_id', 'p.status'])
    .where('r.api_key_id', '=', creation.owner)
    .where('r.idempotency_key', '=', creation.key)
    .where('r.created_at', '>=', creation.expiredBefore)
    .executeTakeFirst()

const addOnceIn = async (trx: Transaction<Database>, creation: IdempotentCreation): Promise<Outcome> => {
  // A unique key alone would make a repeat wait until the first request's transaction ends. The
  // transaction-scoped advisory lock is tried, never waited for: a repeat is refused at once, in
  // any process on this database, and the lock goes with the transaction, however it ends. It is
  // taken before the record is read, so the read sees whatever the last holder committed.
  const { rows } = await sql<{ locked: boolean }>`
    SELECT pg_try_advisory_xact_lock(hashtextextended(${lockName(creation)}, 0)) AS locked`.execute(trx)
  if (rows[0]?.locked !== true) return E.left(idempotencyKeyInUse())
  const found = await findRecord(trx, creation)
  if (found !== undefined) {
    if (found.fingerprint !== creation.fingerprint) return E.left(idempotencyKeyReused())
    const pet = {
      id: toPetId(found.id),
      // It was a PetName when it was stored, and the table's CHECK keeps its length within bounds.
      name: found.name as PetName,
      categoryId: toCategoryId(found.category_id),
      status: found.status,
    }
    return E.right({ pet, replayed: true })
  }
  // The pet goes in through the repository, in this transaction: one place writes pets.
  const added = await createPostgresPetRepository(trx).add(creation.pet)()
  // Only an outage is a left here, and tryStore outside turns its cause back into one.
  if (E.isLeft(added)) throw added.left.cause
  // An expired record of this key may still be there: the lock makes replacing it safe.
  const record = {
    fingerprint: creation.fingerprint,
    pet_id: String(added.right.id),
    created_at: creation.at,
  }
  await trx
    .insertInto('idempotency_records')
    .values({ api_key_id: creation.owner, idempotency_key: creation.key, ...record })
    .onConflict((oc) => oc.columns(['api_key_id', 'idempotency_key']).doUpdateSet(record))
    .execute()
  return E.right({ pet: added.right, replayed: false })
}

/**
 * Idempotent additions on PostgreSQL: the pet and its record are written in one transaction,
 * and a repeat while the first is being performed is told apart, without waiting, by a
 * transaction-scoped advisory lock on the API key and idempotency key. Holds across processes.
 */
export const createPostgresIdempotentPetCreations = (db: Kysely<Database>): IdempotentPetCreations => ({
  addOnce: (creation) =>
    pipe(
      tryStore(() => db.transaction().execute((trx) => addOnceIn(trx, creation))),
      TE.flatMap(TE.fromEither),
    ),
  removeExpired: (before) =>
    pipe(
      tryStore(() =>
        db.deleteFrom('idempotency_records').where('created_at', '<', before).executeTakeFirst(),
      ),
      TE.map((result) => Number(result.numDeletedRows)),
    ),
})
