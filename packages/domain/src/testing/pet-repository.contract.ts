import * as O from 'fp-ts/lib/Option.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PageCursor, Pet, PetId } from '../pet.js'
import type { PetListing, PetRepository } from '../ports.js'
import { aPetData, run } from './builders.js'

/** Opens a fresh, empty repository for one test, and closes it afterwards. */
export type OpenPetRepository = () => Promise<{ repo: PetRepository; close: () => Promise<void> }>

const listing = (overrides: Partial<PetListing> = {}): PetListing => ({
  limit: 100,
  after: 0 as PageCursor,
  ...overrides,
})

/** The behaviour every PetRepository adapter must show; run it from each adapter's tests. */
export const describePetRepositoryContract = (adapter: string, open: OpenPetRepository) =>
  describe(`PetRepository contract (${adapter})`, () => {
    let ctx: Awaited<ReturnType<OpenPetRepository>>
    beforeEach(async () => {
      ctx = await open()
    })
    afterEach(async () => {
      await ctx.close()
    })
    const addAll = async (n: number, status?: Pet['status']) => {
      const added: Array<Pet> = []
      for (let i = 0; i < n; i++)
        added.push(await run(ctx.repo.add(aPetData({ ...(status ? { status } : {}) }))))
      return added
    }

    it('returns the added pet with an id and every field as given', async () => {
      const data = aPetData({ status: 'pending' })
      const pet = await run(ctx.repo.add(data))
      expect(pet).toEqual({ ...data, id: pet.id })
      expect(Number.isSafeInteger(pet.id) && pet.id >= 1).toBe(true)
    })

    it('keeps names exactly as given: spaces, accents, emoji, 255 code points', async () => {
      for (const name of ['  Rex  ', 'Ünïcødé 🐕‍🦺', '🐈'.repeat(255), "O'Brien; DROP TABLE pets; --"]) {
        const pet = await run(ctx.repo.add(aPetData({ name: name as Pet['name'] })))
        expect(await run(ctx.repo.findById(pet.id))).toEqual(O.some(pet))
        expect(pet.name).toBe(name)
      }
    })

    it('keeps category ids up to 2^53 - 1', async () => {
      const pet = await run(
        ctx.repo.add(aPetData({ categoryId: Number.MAX_SAFE_INTEGER as Pet['categoryId'] })),
      )
      expect(await run(ctx.repo.findById(pet.id))).toEqual(O.some(pet))
    })

    it('gives each added pet a larger id than the one before', async () => {
      const [first, second, third] = await addAll(3)
      expect(second!.id).toBeGreaterThan(first!.id)
      expect(third!.id).toBeGreaterThan(second!.id)
    })

    it('gives 100 concurrent adds 100 distinct ids, all listed in increasing order', async () => {
      const added = await Promise.all(Array.from({ length: 100 }, () => run(ctx.repo.add(aPetData()))))
      const ids = added.map((p) => p.id)
      expect(new Set(ids).size).toBe(100)
      const listed = await run(ctx.repo.list(listing({ limit: 101 })))
      expect(listed.map((p) => p.id)).toEqual([...ids].sort((a, b) => a - b))
    })

    it('finds a pet by id, and nothing for an id it never gave', async () => {
      const pet = await run(ctx.repo.add(aPetData()))
      expect(await run(ctx.repo.findById(pet.id))).toEqual(O.some(pet))
      expect(await run(ctx.repo.findById((pet.id + 1000) as PetId))).toEqual(O.none)
      expect(await run(ctx.repo.findById(Number.MAX_SAFE_INTEGER as PetId))).toEqual(O.none)
    })

    it('lists nothing when empty', async () => {
      expect(await run(ctx.repo.list(listing()))).toEqual([])
    })

    it('lists in id order, at most `limit` pets', async () => {
      const added = await addAll(5)
      expect(await run(ctx.repo.list(listing({ limit: 3 })))).toEqual(added.slice(0, 3))
      expect(await run(ctx.repo.list(listing({ limit: 1 })))).toEqual(added.slice(0, 1))
      expect(await run(ctx.repo.list(listing({ limit: 10 })))).toEqual(added)
    })

    it('lists only pets with an id above `after`', async () => {
      const added = await addAll(5)
      const after = added[1]!.id as number as PageCursor
      expect(await run(ctx.repo.list(listing({ after })))).toEqual(added.slice(2))
      const last = added[4]!.id as number as PageCursor
      expect(await run(ctx.repo.list(listing({ after: last })))).toEqual([])
    })

    it('filters by status, with limit and after', async () => {
      const mixed = [
        ...(await addAll(2, 'available')),
        ...(await addAll(3, 'sold')),
        ...(await addAll(1, 'pending')),
        ...(await addAll(2, 'sold')),
      ]
      const sold = mixed.filter((p) => p.status === 'sold')
      expect(await run(ctx.repo.list(listing({ status: 'sold' })))).toEqual(sold)
      expect(await run(ctx.repo.list(listing({ status: 'sold', limit: 2 })))).toEqual(sold.slice(0, 2))
      const after = sold[2]!.id as number as PageCursor
      expect(await run(ctx.repo.list(listing({ status: 'sold', after })))).toEqual(sold.slice(3))
      expect(await run(ctx.repo.list(listing({ status: 'pending' })))).toEqual(
        mixed.filter((p) => p.status === 'pending'),
      )
    })

    it('never reuses an id, also after the pets listed before', async () => {
      const before = await addAll(3)
      const later = await addAll(3)
      const ids = [...before, ...later].map((p) => p.id)
      expect(new Set(ids).size).toBe(6)
      expect(Math.min(...later.map((p) => p.id))).toBeGreaterThan(Math.max(...before.map((p) => p.id)))
    })
  })
