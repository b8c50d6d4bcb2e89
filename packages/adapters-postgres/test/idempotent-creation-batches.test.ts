import type { Pet, PetStatus } from '@pets/domain'
import { run } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  type Database,
  fromKysely,
} from '../src/index.js'
import { countRows, holdOrderingLock, named, waitForLockWait } from './support/creation-batches.js'
import { patient } from './support/patient.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

/** A kysely handle on `pool` that notes each statement with create_pets_once. */
const counted = (pool: pg.Pool) => {
  const batches: Array<string> = []
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => void (/create_pets_once/.test(event.query.sql) && batches.push(event.query.sql)),
  })
  return { db, batches }
}
describe('idempotent creations in batches', () => {
  const { open, track } = useFreshDatabases()

  it('gathers what arrives while a batch is under way into one statement, each creation answered with its own outcome', async () => {
    const fresh = await open()
    const setup = createPostgresIdempotentPetCreations(fresh, { clock: 'request' })
    const replayed = await run(setup.addOnce(named('replay-me')))
    await run(setup.addOnce(named('reuse-me')))
    const { db, batches } = counted(fresh.pool)
    const creations = createPostgresIdempotentPetCreations(fromKysely(db), {
      clock: 'request',
      lockTimeoutMs: 10_000,
    })
    const release = await holdOrderingLock(fresh)
    const first = creations.addOnce(named('first'))()
    await waitForLockWait(fresh)
    const gathered = [
      named('new-1'),
      named('replay-me'),
      named('reuse-me', { fingerprint: 'another body' }),
      named('first'),
      named('new-2'),
      named('new-1'),
    ].map((c) => creations.addOnce(c)())
    await release()
    const [one, replay, reuse, firstAgain, two, oneAgain] = await Promise.all(gathered)
    const firstPet = await run(() => first)
    // A repeat of a key queued or under way here runs no statement: the first added the pet meanwhile.
    expect(batches).toHaveLength(2)
    expect(firstAgain).toEqual(E.left({ _tag: 'IdempotencyKeyInUse' }))
    expect(oneAgain).toEqual(E.left({ _tag: 'IdempotencyKeyInUse' }))
    expect(replay).toEqual(E.right(replayed))
    expect(reuse).toEqual(E.left({ _tag: 'IdempotencyKeyReused' }))
    const [pet1, pet2] = [one, two].map((r) => (E.isRight(r!) ? r.right : undefined))
    expect([firstPet.name, pet1?.name, pet2?.name]).toEqual(['first', 'new-1', 'new-2'])
    expect(firstPet.id).toBeLessThan(pet1!.id)
    expect(pet1!.id).toBeLessThan(pet2!.id)
    expect(await countRows(fresh, 'pets')).toBe(5)
    expect(await countRows(fresh, 'idempotency_records')).toBe(5)
  })

  it('adds one pet per key for 200 concurrent creations of 50 keys through two pools, as two instances would', async () => {
    const fresh = await open({ poolSize: 10 })
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 10, ...patient })
    track(other)
    const instances = [fresh, other].map((d) => createPostgresIdempotentPetCreations(d))
    // Each key is sent twice by each instance.
    const keys = Array.from({ length: 200 }, (_, i) => `key ${i % 50}`)
    const results = await Promise.all(
      keys.map((key, i) => instances[Math.floor(i / 50) % 2]!.addOnce(named(key))()),
    )
    expect(await countRows(fresh, 'pets')).toBe(50)
    expect(await countRows(fresh, 'idempotency_records')).toBe(50)
    const idsByKey = new Map<string, Set<number>>()
    results.forEach((result, i) => {
      if (E.isLeft(result)) return expect(result.left).toEqual({ _tag: 'IdempotencyKeyInUse' })
      expect(result.right.name).toBe(keys[i])
      idsByKey.set(keys[i]!, (idsByKey.get(keys[i]!) ?? new Set()).add(result.right.id))
    })
    expect(idsByKey.size).toBe(50)
    for (const ids of idsByKey.values()) expect(ids.size).toBe(1)
  })

  it('answers repeats of a finished key that come while its replay is under way: the pet, or reused for another body', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh, { clock: 'request' })
    const done = await run(creations.addOnce(named('done')))
    const release = await holdOrderingLock(fresh)
    // The batch under way adds `first` and replays `done`; the repeats wait for it.
    const underWay = [named('first'), named('done')].map((c) => creations.addOnce(c)())
    await waitForLockWait(fresh)
    const repeats = [named('done'), named('done', { fingerprint: 'another body' }), named('done')].map((c) =>
      creations.addOnce(c)(),
    )
    await release()
    expect(await Promise.all([...underWay.slice(1), ...repeats])).toEqual([
      E.right(done),
      E.right(done),
      E.left({ _tag: 'IdempotencyKeyReused' }),
      E.right(done),
    ])
    expect(await underWay[0]).toMatchObject(E.right({ name: 'first' }))
    expect(await countRows(fresh, 'pets')).toBe(2)
  })

  it('runs again a repeat with the recorded body that came while another body of its key was refused', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh, { clock: 'request' })
    const done = await run(creations.addOnce(named('done')))
    const release = await holdOrderingLock(fresh)
    const other = { fingerprint: 'another body' }
    // The batch under way refuses `done` with another body; the repeats wait for it.
    const underWay = [named('first'), named('done', other)].map((c) => creations.addOnce(c)())
    await waitForLockWait(fresh)
    const repeats = [named('done'), named('done', other)].map((c) => creations.addOnce(c)())
    await release()
    const reused = E.left({ _tag: 'IdempotencyKeyReused' })
    expect(await Promise.all([underWay[1], ...repeats])).toEqual([reused, E.right(done), reused])
    expect(await countRows(fresh, 'pets')).toBe(2)
  })

  it('answers concurrent replays of finished keys through two pools with their pets, never in use', async () => {
    const fresh = await open({ poolSize: 10 })
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 10, ...patient })
    track(other)
    const instances = [fresh, other].map((d) => createPostgresIdempotentPetCreations(d))
    const keys = Array.from({ length: 5 }, (_, i) => `key ${i}`)
    const pets = await Promise.all(keys.map((key) => run(instances[0]!.addOnce(named(key)))))
    // Each key replayed 40 times at once, half by each instance.
    const replays = Array.from({ length: 200 }, (_, i) => i % 5)
    const results = await Promise.all(replays.map((k, i) => instances[i % 2]!.addOnce(named(keys[k]!))()))
    expect(results).toEqual(replays.map((k) => E.right(pets[k])))
    expect(await countRows(fresh, 'pets')).toBe(5)
  })

  it('fails every creation of a batch that failed, adds none of them, and leaves their keys free', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh)
    const release = await holdOrderingLock(fresh)
    const first = creations.addOnce(named('first'))()
    await waitForLockWait(fresh)
    const bad = { pet: { name: 'bad', categoryId: 1, status: 'lost' as PetStatus } as Pet }
    const batch = [named('a'), named('b', bad), named('c')].map((c) => creations.addOnce(c)())
    await release()
    await run(() => first)
    for (const creation of batch) await expect(creation).rejects.toMatchObject({ code: '23514' })
    expect(await countRows(fresh, 'pets')).toBe(1)
    expect(await countRows(fresh, 'idempotency_records')).toBe(1)
    expect((await run(creations.addOnce(named('a')))).name).toBe('a')
    expect((await run(creations.addOnce(named('c')))).name).toBe('c')
  })

  it('on a read-only database: answers a replay batched with creations that need a write, which fail as 25006', async () => {
    const fresh = await open()
    const replayed = await run(createPostgresIdempotentPetCreations(fresh).addOnce(named('replay-me')))
    await sql.raw(`ALTER DATABASE "${fresh.name}" SET default_transaction_read_only = on`).execute(fresh.db)
    const readOnly = createPostgresDatabase({ connectionString: fresh.url, ...patient })
    track(readOnly)
    const { db, batches } = counted(readOnly.pool)
    const creations = createPostgresIdempotentPetCreations(fromKysely(db))
    // The first goes alone; the other two arrive while it is under way and go together.
    const [x, replay, y] = await Promise.all(
      [named('x'), named('replay-me'), named('y')].map((c) => creations.addOnce(c)()),
    )
    expect(batches).toHaveLength(2)
    expect(replay).toEqual(E.right(replayed))
    for (const refused of [x, y])
      expect(refused).toMatchObject(
        E.left({ _tag: 'StoreUnavailable', refusesWrites: true, cause: { code: '25006' } }),
      )
    expect(await countRows(fresh, 'pets')).toBe(1)
  })
})
