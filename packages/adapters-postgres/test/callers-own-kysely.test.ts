import type { ApiKeyName, PageCursor, PetName } from '@pets/domain'
import { aCreation, aPetData, run } from '@pets/domain/testing'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  fromKysely,
  type Database,
} from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// An embedding service's schema: ours, and a table of its own.
type Orders = { orders: { id: number; pet_id: string } }

describe("a caller's own kysely instance, with tables of its own", () => {
  const { open } = useFreshDatabases()

  it('is taken as it is, and so is its transaction: the pet and the caller’s row commit or roll back together', async () => {
    const fresh = await open()
    await sql`CREATE TABLE orders (id serial PRIMARY KEY, pet_id bigint NOT NULL)`.execute(fresh.db)
    const db = new Kysely<Database & Orders>({ dialect: new PostgresDialect({ pool: fresh.pool }) })
    const addBoth = (name: string, end: 'commit' | 'rollback') =>
      db
        .transaction()
        .execute(async (trx) => {
          const pet = await run(
            createPostgresPetRepository(fromKysely(trx)).add(aPetData({ name: name as PetName })),
          )
          await trx
            .insertInto('orders')
            .values({ id: pet.id, pet_id: String(pet.id) })
            .execute()
          if (end === 'rollback') throw new Error('the caller changed its mind')
          return pet
        })
        .catch(() => undefined)
    expect(await addBoth('kept', 'commit')).toMatchObject({ name: 'kept' })
    expect(await addBoth('dropped', 'rollback')).toBeUndefined()
    const pets = await run(
      createPostgresPetRepository(fromKysely(db)).list({ limit: 10, after: 0 as PageCursor }),
    )
    expect(pets.map((p) => p.name)).toEqual(['kept'])
    expect(await db.selectFrom('orders').select('pet_id').execute()).toEqual([
      { pet_id: String(pets[0]!.id) },
    ])
    // The key store and the usage log take it too.
    const issued = await run(createPostgresApiKeyStore(db).issue('embedded' as ApiKeyName))
    const usage = createPostgresApiKeyUsageLog(db)
    const calls = { keyId: issued.record.id, operation: 'listPets', calls: 1, lastCalledAt: new Date() }
    await run(usage.add([calls]))
    expect(await run(usage.list())).toEqual([calls])
  })

  it('leaves the lock timeout of the caller’s transaction as it was: our inserts set theirs for themselves', async () => {
    const fresh = await open()
    const lockTimeoutAfter = (add: (trx: Kysely<Database>) => Promise<unknown>) =>
      fresh.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL lock_timeout = '30s'`.execute(trx)
        await add(trx)
        const { rows } = await sql<{ lt: string }>`SELECT current_setting('lock_timeout') AS lt`.execute(trx)
        return rows[0]?.lt
      })
    expect(
      await lockTimeoutAfter((trx) => run(createPostgresPetRepository(fromKysely(trx)).add(aPetData()))),
    ).toBe('30s')
    const once = aCreation({ key: 'in-a-transaction' })
    expect(
      await lockTimeoutAfter((trx) =>
        run(createPostgresIdempotentPetCreations(fromKysely(trx)).addOnce(once)),
      ),
    ).toBe('30s')
  })
})
