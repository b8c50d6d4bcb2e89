import type { PetId } from '@pets/domain'
import { aCreation, aPetData, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import {
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  migrateToLatest,
  migrations,
} from '../src/index.js'
import type { FreshDatabase } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const LAST_ID = Number.MAX_SAFE_INTEGER
const PAST_THE_LAST = /reached maximum value of sequence "pets_id_seq" \(9007199254740991\)/

const countPets = async ({ db }: FreshDatabase) =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pets`.execute(db)).rows[0]!.n)

const setSequence = async ({ db }: FreshDatabase, value: bigint) =>
  sql`SELECT setval(pg_get_serial_sequence('pets', 'id'), ${value.toString()}::bigint)`.execute(db)

// CONTRACT: an id is an integer from 1 to 2^53 − 1. Past it, toPetId refuses the row: without the sequence's
// MAXVALUE (migration 0010) the insert committed and only its answer failed, a 500 for a pet that was added.
describe('the last id a JSON number carries', () => {
  const { open } = useFreshDatabases()

  it('is given once; the next insert fails before anything is written, alone or batched, with or without a key', async () => {
    const fresh = await open()
    const pets = createPostgresPetRepository(fresh)
    const creations = createPostgresIdempotentPetCreations(fresh)
    await setSequence(fresh, BigInt(LAST_ID - 1))
    const last = await run(pets.add(aPetData()))
    expect(last.id).toBe(LAST_ID)
    await expect(run(pets.add(aPetData()))).rejects.toThrow(PAST_THE_LAST)
    await expect(Promise.all([run(pets.add(aPetData())), run(pets.add(aPetData()))])).rejects.toThrow(
      PAST_THE_LAST,
    )
    await expect(run(creations.addOnce(aCreation()))).rejects.toThrow(PAST_THE_LAST)
    expect(await countPets(fresh)).toBe(1)
    expect(await run(pets.findById(LAST_ID as PetId))).toEqual(O.some(last))
  })

  it('cannot be passed by a setval once migrated', async () => {
    const fresh = await open()
    await expect(setSequence(fresh, BigInt(LAST_ID) + 1n)).rejects.toThrow(/out of bounds/)
  })

  it('is refused by name when a database of an earlier release has its sequence past it', async () => {
    // The database as 0009 left it, whose sequence an operator set past the last id.
    const fresh = await open({ empty: true })
    const before = new Migrator({ db: fresh.db, provider: { getMigrations: async () => migrations } })
    expect((await before.migrateTo('2026-11-26-0009-replays-beside-busy-keys')).error).toBeUndefined()
    await setSequence(fresh, BigInt(LAST_ID) + 1n)
    await expect(migrateToLatest(fresh)).rejects.toMatchObject({
      message:
        'Migration 2026-11-27-0010-pet-ids-within-json failed, so no migration of this run was applied',
      cause: {
        message:
          'the sequence pets_id_seq of pets.id is at 9007199254740992, past 9007199254740991, ' +
          "the largest id a JSON number carries exactly: if no pet has an id past it, set it back with SELECT setval('pets_id_seq', max(id)) FROM pets; pets with ids past it cannot be served",
      },
    })
    await setSequence(fresh, 1n)
    await migrateToLatest(fresh)
    await expect(setSequence(fresh, BigInt(LAST_ID) + 1n)).rejects.toThrow(/out of bounds/)
  })
})
