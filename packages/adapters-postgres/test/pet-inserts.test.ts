import type { CategoryId, PageCursor, Pet, PetData, PetName } from '@pets/domain'
import { aPetData, run } from '@pets/domain/testing'
import { describe, expect, inject, it } from 'vitest'
import { batchPetInserts, batchStatements, MAX_INSERT_BATCH } from '../src/pet-inserts.js'
import type { RunDone, RunPreparedAfter, Statement } from '../src/statement.js'
import { REGISTER_INTENT } from '../src/insert-intents.js'
import { createPostgresPetRepository } from '../src/index.js'
import { openFreshDatabase } from '../src/testing/index.js'

const INSERT: Statement<Pet> = { text: 'INSERT …', columns: [], decode: () => ({}) as Pet }

// A runner that holds each statement until the test ends it, and gives ids in the batch's order.
const heldRunner = () => {
  const held: Array<{
    readonly batch: ReadonlyArray<[string, number, string]>
    readonly done: RunDone<Pet>
  }> = []
  let nextId = 1
  const runner: RunPreparedAfter = (first, intent, _statement, values, done) => {
    // Every insert names the intent registered just before it, on the same connection.
    expect(first).toBe(REGISTER_INTENT)
    expect([values[2], values[3]]).toEqual([intent[0], intent[1]])
    held.push({
      batch: JSON.parse(values[1]!) as Array<[string, number, string]>,
      done: done as RunDone<Pet>,
    })
  }
  const answer = (index = 0) => {
    const [{ batch, done }] = held.splice(index, 1) as [(typeof held)[number]]
    // Rows come back in any order: the batcher matches them by id and content.
    const rows = batch.map(
      ([name, categoryId, status]) => ({ id: nextId++, name, categoryId, status }) as Pet,
    )
    done(undefined, rows.reverse())
  }
  return { runner, held, answer }
}

const creation = (i: number): PetData =>
  aPetData({ name: `pet ${i}` as PetName, categoryId: (i + 1) as CategoryId })

const add = (inserts: ReturnType<typeof batchPetInserts>, pet: PetData) =>
  new Promise<Pet>((resolve, reject) => inserts(pet, resolve, reject))

describe('batchPetInserts', () => {
  it('inserts a creation at once, alone, when nothing is under way', async () => {
    const { runner, held, answer } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 1)
    const pet = add(inserts, creation(0))
    expect(held.map((h) => h.batch.length)).toEqual([1])
    answer()
    expect(await pet).toMatchObject({ id: 1, name: 'pet 0' })
  })

  it('gathers what comes while an insert is under way into the next one, and answers each creation with its own row', async () => {
    const { runner, held, answer } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 1)
    const pets = Array.from({ length: 100 }, (_, i) => add(inserts, creation(i)))
    expect(held.map((h) => h.batch.length)).toEqual([1])
    answer()
    expect(held.map((h) => h.batch.length)).toEqual([99])
    answer()
    const added = await Promise.all(pets)
    added.forEach((pet, i) => expect(pet).toMatchObject({ name: `pet ${i}`, categoryId: i + 1 }))
    expect(new Set(added.map((p) => p.id)).size).toBe(100)
  })

  it(`carries at most ${MAX_INSERT_BATCH} creations in one insert`, () => {
    const { runner, held, answer } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 1)
    for (let i = 0; i < 1 + MAX_INSERT_BATCH + 10; i++) void add(inserts, creation(i))
    answer()
    expect(held.map((h) => h.batch.length)).toEqual([MAX_INSERT_BATCH])
    answer()
    expect(held.map((h) => h.batch.length)).toEqual([10])
  })

  it('fails every creation an insert carried when it failed, and goes on with the next', async () => {
    const { runner, held, answer } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 1)
    const first = add(inserts, creation(0))
    const failing = add(inserts, creation(1))
    const later = add(inserts, creation(2))
    answer()
    await first
    // The second insert carries creations 1 and 2, and fails: both fail, neither was added.
    expect(held.map((h) => h.batch.length)).toEqual([2])
    const failure = new Error('lock timeout')
    held.shift()!.done(failure, [])
    await expect(failing).rejects.toBe(failure)
    await expect(later).rejects.toBe(failure)
    // The next one goes on as ever.
    const next = add(inserts, creation(3))
    answer()
    expect((await next).name).toBe('pet 3')
  })

  it('fails the creations of an insert that added no row (its intent expired) as unavailable, 55P03', async () => {
    const { runner, held } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 1)
    const pet = add(inserts, creation(0))
    held.shift()!.done(undefined, [])
    await expect(pet).rejects.toMatchObject({ code: '55P03' })
  })

  it('keeps as many inserts under way as it is given, gathering the rest into the next', () => {
    const { runner, held, answer } = heldRunner()
    const inserts = batchPetInserts(runner, INSERT, '500', 750, 2)
    for (let i = 0; i < 10; i++) void add(inserts, creation(i))
    expect(held.map((h) => h.batch.length)).toEqual([1, 1])
    answer()
    expect(held.map((h) => h.batch.length)).toEqual([1, 8])
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
      const repo = createPostgresPetRepository(fresh.db)
      const added = await Promise.all(Array.from({ length: 300 }, (_, i) => run(repo.add(creation(i)))))
      added.forEach((pet, i) => expect(pet).toMatchObject({ name: `pet ${i}`, categoryId: i + 1 }))
      const listed = await run(repo.list({ limit: 300, after: 0 as PageCursor }))
      expect(listed.map((p) => p.id)).toEqual([...added.map((p) => p.id)].sort((a, b) => a - b))
    } finally {
      await fresh.close()
    }
  })
})
