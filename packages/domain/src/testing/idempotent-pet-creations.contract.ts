import * as E from 'fp-ts/lib/Either.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { IdempotencyKey, IdempotentCreation } from '../idempotency.js'
import type { PageCursor, Pet } from '../pet.js'
import type { IdempotentPetCreations, PetRepository } from '../ports.js'
import { aPetData, run, runLeft } from './builders.js'

/** Opens fresh, empty stores for one test: the creations and the pets they add to. */
export type OpenIdempotentPetCreations = () => Promise<{
  creations: IdempotentPetCreations
  pets: PetRepository
  close: () => Promise<void>
}>

const T0 = new Date('2026-11-22T12:00:00Z')
const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000)

/** A request to add a pet once, made at T0 with a 24-hour window; override any field. */
export const aCreation = (
  overrides: Partial<Omit<IdempotentCreation, 'key'>> & { key?: string } = {},
): IdempotentCreation => ({
  owner: 'key-1',
  fingerprint: 'fingerprint-1',
  pet: aPetData(),
  at: T0,
  expiredBefore: hours(-24),
  ...overrides,
  key: (overrides.key ?? 'retry-me') as IdempotencyKey,
})

/** The behaviour every IdempotentPetCreations adapter must show; run it from each adapter's tests. */
export const describeIdempotentPetCreationsContract = (adapter: string, open: OpenIdempotentPetCreations) =>
  describe(`IdempotentPetCreations contract (${adapter})`, () => {
    let ctx: Awaited<ReturnType<OpenIdempotentPetCreations>>
    beforeEach(async () => {
      ctx = await open()
    })
    afterEach(async () => {
      await ctx.close()
    })
    const allPets = () => run(ctx.pets.list({ limit: 1000, after: 0 as PageCursor }))

    it('adds the pet on the first request, and gives the same pet to a repeat, adding nothing', async () => {
      const data = aPetData({ status: 'sold' })
      const first = await run(ctx.creations.addOnce(aCreation({ pet: data })))
      expect(first).toEqual({ ...data, id: first.id })
      expect(await allPets()).toEqual([first])
      const again = await run(ctx.creations.addOnce(aCreation({ pet: data, at: hours(23) })))
      expect(again).toEqual(first)
      expect(await allPets()).toEqual([first])
    })

    it('refuses the same key with another fingerprint as IdempotencyKeyReused, adding nothing', async () => {
      const first = await run(ctx.creations.addOnce(aCreation()))
      const other = aCreation({ fingerprint: 'fingerprint-2', pet: aPetData({ name: 'Tom' as Pet['name'] }) })
      expect(await runLeft(ctx.creations.addOnce(other))).toEqual({ _tag: 'IdempotencyKeyReused' })
      expect(await allPets()).toEqual([first])
    })

    it('keeps the idempotency keys of different API keys apart', async () => {
      const a = await run(ctx.creations.addOnce(aCreation({ owner: 'key-1' })))
      const b = await run(ctx.creations.addOnce(aCreation({ owner: 'key-2', fingerprint: 'other' })))
      expect(b.id).not.toBe(a.id)
      expect(await allPets()).toEqual([a, b])
      expect(await run(ctx.creations.addOnce(aCreation({ owner: 'key-1' })))).toEqual(a)
      expect(await allPets()).toEqual([a, b])
    })

    it('tells keys apart by every character: case, spaces and punctuation count', async () => {
      const keys = ['retry-me', 'Retry-me', 'retry me', 'retry-me.', `"retry-me"`, '~'.repeat(255)]
      const added = []
      for (const key of keys) added.push(await run(ctx.creations.addOnce(aCreation({ key }))))
      expect(await allPets()).toEqual(added)
      expect(new Set(added.map((a) => a.id)).size).toBe(keys.length)
      for (const [i, key] of keys.entries())
        expect(await run(ctx.creations.addOnce(aCreation({ key })))).toEqual(added[i])
      expect(await allPets()).toEqual(added)
    })

    it('replays a record made exactly at expiredBefore, and replaces one made earlier', async () => {
      const first = await run(ctx.creations.addOnce(aCreation({ at: T0 })))
      const edge = aCreation({ at: hours(24), expiredBefore: T0 })
      expect(await run(ctx.creations.addOnce(edge))).toEqual(first)
      expect(await allPets()).toEqual([first])

      const later = aCreation({ fingerprint: 'fingerprint-2', at: hours(25), expiredBefore: hours(1) })
      const second = await run(ctx.creations.addOnce(later))
      expect(second.id).toBeGreaterThan(first.id)
      expect(await allPets()).toEqual([first, second])
      // The new record holds from now on: its fingerprint is the one that replays.
      expect(await run(ctx.creations.addOnce(later))).toEqual(second)
      expect(await allPets()).toEqual([first, second])
      expect(await runLeft(ctx.creations.addOnce({ ...later, fingerprint: 'fingerprint-1' }))).toEqual({
        _tag: 'IdempotencyKeyReused',
      })
    })

    it('removes the records made before an instant, says how many, and keeps the rest', async () => {
      const old = await run(ctx.creations.addOnce(aCreation({ key: 'old', at: hours(-30) })))
      await run(ctx.creations.addOnce(aCreation({ key: 'older', at: hours(-40) })))
      const edge = await run(ctx.creations.addOnce(aCreation({ key: 'edge', at: hours(-24) })))
      const fresh = await run(ctx.creations.addOnce(aCreation({ key: 'fresh', at: T0 })))
      expect(await run(ctx.creations.removeExpired(hours(-24)))).toBe(2)
      expect(await run(ctx.creations.removeExpired(hours(-24)))).toBe(0)
      // Whatever the window of the next request, a removed record is gone for good.
      const keepAll = { expiredBefore: new Date(0) }
      const before = await allPets()
      const again = await run(ctx.creations.addOnce(aCreation({ key: 'old', ...keepAll })))
      expect(before.map((p) => p.id)).not.toContain(again.id)
      expect(await allPets()).toEqual([...before, again])
      expect(await run(ctx.creations.addOnce(aCreation({ key: 'edge', ...keepAll })))).toEqual(edge)
      expect(await run(ctx.creations.addOnce(aCreation({ key: 'fresh', ...keepAll })))).toEqual(fresh)
      expect(await allPets()).toEqual([...before, again])
      // The pets stay: only the records of their requests are forgotten.
      expect(before).toContainEqual(old)
    })

    it('adds one pet for 50 concurrent requests with one key: each gets it, or IdempotencyKeyInUse', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, () => ctx.creations.addOnce(aCreation())()),
      )
      const pets = await allPets()
      expect(pets).toHaveLength(1)
      const created: Array<Pet> = []
      for (const result of results) {
        if (E.isLeft(result)) expect(result.left).toEqual({ _tag: 'IdempotencyKeyInUse' })
        else created.push(result.right)
      }
      // One pet was added, and every request that was not refused got that one.
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(created.every((c) => c.id === pets[0]!.id)).toBe(true)
      // Once the first has finished, the key replays, adding nothing.
      expect(await run(ctx.creations.addOnce(aCreation()))).toEqual(pets[0])
      expect(await allPets()).toEqual(pets)
    })

    it('answers concurrent repeats of a finished key with its pet, or IdempotencyKeyReused for another body, never in use', async () => {
      const first = await run(ctx.creations.addOnce(aCreation()))
      const fingerprints = Array.from({ length: 30 }, (_, i) =>
        i % 5 === 4 ? 'fingerprint-2' : 'fingerprint-1',
      )
      const results = await Promise.all(
        fingerprints.map((fingerprint) => ctx.creations.addOnce(aCreation({ fingerprint, at: hours(1) }))()),
      )
      expect(results).toEqual(
        fingerprints.map((f) =>
          f === 'fingerprint-1' ? E.right(first) : E.left({ _tag: 'IdempotencyKeyReused' }),
        ),
      )
      expect(await allPets()).toEqual([first])
    })

    it('adds a pet for each of 20 concurrent requests with different keys', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => run(ctx.creations.addOnce(aCreation({ key: `key ${i}` })))),
      )
      expect(new Set(results.map((r) => r.id)).size).toBe(20)
      expect(await allPets()).toHaveLength(20)
    })
  })
