import type { CategoryId, PageCursor, Pet, PetData, PetName } from '@pets/domain'
import { aPetData, run } from '@pets/domain/testing'
import { describe, expect, inject, it } from 'vitest'
import { batchPetInserts, batchStatements, MAX_INSERT_BATCH } from '../src/stores/pet-inserts.js'
import type { RunDone, RunPrepared, RunPreparedAfter, Statement } from '../src/runner/statement.js'
import { REGISTER_INTENT } from '../src/stores/insert-intents.js'
import { createPostgresPetRepository } from '../src/index.js'
import { openFreshDatabase } from '../src/testing/index.js'

const INSERT: Statement<Pet> = { text: 'INSERT …', columns: [], decode: () => ({}) as Pet }
const RELEASE: Statement<unknown> = { text: 'RELEASE …', columns: [], decode: () => undefined }
const STATEMENTS = { insert: INSERT, release: RELEASE }

type Held = {
  readonly statement: Statement<unknown>
  readonly values: ReadonlyArray<string | null>
  /** What the statement registered first on the same connection, if anything. */
  readonly registered?: ReadonlyArray<string | null>
  readonly done: RunDone<unknown>
}

// Runners that hold each statement until the test ends it; inserts give ids in the batch's order.
const heldRunner = () => {
  const held: Array<Held> = []
  let nextId = 1
  const pair: RunPreparedAfter = (first, registered, statement, values, done) => {
    expect(first).toBe(REGISTER_INTENT)
    held.push({ statement, values, registered, done: done as RunDone<unknown> })
  }
  const one: RunPrepared = (statement, values, done) =>
    void held.push({ statement, values, done: done as RunDone<unknown> })
  const batchOf = (h: Held) => JSON.parse(h.values[1]!) as Array<[string, number, string]>
  const answer = (index = 0) => {
    const [h] = held.splice(index, 1) as [Held]
    if (h.statement === RELEASE) return h.done(undefined, [])
    // Rows come back in any order: the batcher matches them by id and content.
    const rows = batchOf(h).map(([name, categoryId, status]) => ({ id: nextId++, name, categoryId, status }))
    h.done(undefined, rows.reverse())
  }
  const sizes = () => held.map((h) => (h.statement === RELEASE ? 'release' : batchOf(h).length))
  const make = () => batchPetInserts(pair, one, STATEMENTS, '500', 750)
  return { held, answer, sizes, make }
}

const creation = (i: number): PetData =>
  aPetData({ name: `pet ${i}` as PetName, categoryId: (i + 1) as CategoryId })

const add = (inserts: ReturnType<typeof batchPetInserts>, pet: PetData) =>
  new Promise<Pet>((resolve, reject) => inserts(pet, resolve, reject))

describe('batchPetInserts', () => {
  it('inserts a creation at once, alone, after registering its intent, and clears the next intent once nothing waits', async () => {
    const { held, answer, sizes, make } = heldRunner()
    const pet = add(make(), creation(0))
    expect(sizes()).toEqual([1])
    const [slot, intent, lifetime] = held[0]!.registered!
    // The insert claims the intent just registered in its slot, and names the next one.
    expect(held[0]!.values.slice(2)).toEqual([slot, intent, expect.any(String), lifetime])
    const next = held[0]!.values[4]
    answer()
    expect(await pet).toMatchObject({ id: 1, name: 'pet 0' })
    expect(sizes()).toEqual(['release'])
    expect(held[0]!.values).toEqual([slot, next])
    answer()
  })

  it('gathers what comes while an insert is under way into the next one, which claims the intent the first registered', async () => {
    const { held, answer, sizes, make } = heldRunner()
    const inserts = make()
    const pets = Array.from({ length: 100 }, (_, i) => add(inserts, creation(i)))
    expect(sizes()).toEqual([1])
    const next = held[0]!.values[4]
    answer()
    expect(sizes()).toEqual([99])
    // One statement: no registering first.
    expect(held[0]!.registered).toBeUndefined()
    expect(held[0]!.values[3]).toBe(next)
    answer()
    const added = await Promise.all(pets)
    added.forEach((pet, i) => expect(pet).toMatchObject({ name: `pet ${i}`, categoryId: i + 1 }))
    expect(new Set(added.map((p) => p.id)).size).toBe(100)
    expect(sizes()).toEqual(['release'])
  })

  it(`carries at most ${MAX_INSERT_BATCH} creations in one insert`, () => {
    const { answer, sizes, make } = heldRunner()
    const inserts = make()
    for (let i = 0; i < 1 + MAX_INSERT_BATCH + 10; i++) void add(inserts, creation(i))
    answer()
    expect(sizes()).toEqual([MAX_INSERT_BATCH])
    answer()
    expect(sizes()).toEqual([10])
  })

  it('fails every creation an insert carried when it failed, and registers a fresh intent for the next', async () => {
    const { held, answer, sizes, make } = heldRunner()
    const inserts = make()
    const first = add(inserts, creation(0))
    const failing = add(inserts, creation(1))
    const later = add(inserts, creation(2))
    answer()
    await first
    // The second insert carries creations 1 and 2, and fails: both fail, neither was added.
    expect(sizes()).toEqual([2])
    const failure = new Error('lock timeout')
    held.shift()!.done(failure, [])
    await expect(failing).rejects.toBe(failure)
    await expect(later).rejects.toBe(failure)
    // Nothing is known of the slot now: the next insert registers its intent first.
    const next = add(inserts, creation(3))
    expect(held[0]!.registered).toBeDefined()
    answer()
    expect((await next).name).toBe('pet 3')
  })

  it('answers each creation its own row when the ids do not follow the batch, identical creations included', async () => {
    const { held, answer, make } = heldRunner()
    const inserts = make()
    const first = add(inserts, creation(0))
    const [a, b] = [creation(1), creation(2)]
    const waiting = [a, b, a].map((pet) => add(inserts, pet))
    answer()
    await first
    // Rows sorted by id are not the batch's order: matched by content, each row to one creation.
    held.shift()!.done(
      undefined,
      [11, 12, 13].map((id, i) => ({ ...[b, a, a][i]!, id }) as Pet),
    )
    const [a1, b1, a2] = await Promise.all(waiting)
    expect(b1!.id).toBe(11)
    expect([a1!.id, a2!.id].sort()).toEqual([12, 13])
  })

  it('fails the creations of an insert that added no row (its intent expired) as unavailable, 55P03', async () => {
    const { held, make } = heldRunner()
    const pet = add(make(), creation(0))
    held.shift()!.done(undefined, [])
    await expect(pet).rejects.toMatchObject({ code: '55P03' })
  })
})

describe('batchStatements', () => {
  it('gathers into a batch only what fits with its first item; the rest waits, in order, for the next', () => {
    const sent: Array<ReadonlyArray<string>> = []
    const ends: Array<() => void> = []
    const enqueue = batchStatements<string>(
      3,
      (batch, ended) => {
        sent.push(batch)
        ends.push(ended)
      },
      (first, next) => first[0] === next[0],
    )
    for (const item of ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'a6']) enqueue(item)
    expect(sent).toEqual([['a1']])
    ends.shift()!()
    expect(sent.at(-1)).toEqual(['a2', 'a3', 'a4'])
    ends.shift()!()
    expect(sent.at(-1)).toEqual(['a5'])
    ends.shift()!()
    expect(sent.at(-1)).toEqual(['b1'])
    ends.shift()!()
    expect(sent.at(-1)).toEqual(['a6'])
    ends.shift()!()
    expect(sent).toHaveLength(5)
  })
})

describe('batched inserts on PostgreSQL', () => {
  it('adds 300 concurrent creations, each answered with its own row, all listed in id order', async () => {
    const fresh = await openFreshDatabase(inject('postgres'))
    try {
      const repo = createPostgresPetRepository(fresh)
      const added = await Promise.all(Array.from({ length: 300 }, (_, i) => run(repo.add(creation(i)))))
      added.forEach((pet, i) => expect(pet).toMatchObject({ name: `pet ${i}`, categoryId: i + 1 }))
      const listed = await run(repo.list({ limit: 300, after: 0 as PageCursor }))
      expect(listed.map((p) => p.id)).toEqual([...added.map((p) => p.id)].sort((a, b) => a - b))
    } finally {
      await fresh.close()
    }
  })
})
