import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { afterEach, describe, expect, it } from 'vitest'
import type { ApiKeyName } from '../api-key.js'
import type { PageCursor, Pet, PetId } from '../pet.js'
import type { Storage } from '../ports.js'
import { aPetData, run } from './builders.js'
import { aCreation } from './idempotent-pet-creations.contract.js'

/** Opens a fresh, empty storage, not yet started: the suite starts and closes it. */
export type OpenStorage = () => Promise<Storage>

const everything = { limit: 1000, after: 0 as PageCursor }

/**
 * A storage as a whole, beyond its ports' suites (run those too): the ports share one store, it starts
 * and closes as the composition expects, and two storages share nothing.
 */
export const describeStorageContract = (adapter: string, open: OpenStorage) =>
  describe(`Storage contract (${adapter})`, () => {
    const opened: Array<Storage> = []
    const started = async () => {
      const storage = await open()
      opened.push(storage)
      await storage.start()
      return storage
    }
    afterEach(async () => {
      for (const storage of opened.splice(0)) await storage.close()
    })

    it('answers the health check once started', async () => {
      const storage = await started()
      expect(E.isRight(await storage.health.check()())).toBe(true)
    })

    it('gives pets added directly and pets added once one sequence of ids, and one listing', async () => {
      const { pets, creations } = await started()
      const first = await run(pets.add(aPetData({ name: 'First' as Pet['name'] })))
      const once = await run(creations.addOnce(aCreation({ pet: aPetData({ status: 'sold' }) })))
      const last = await run(pets.add(aPetData({ name: 'Last' as Pet['name'] })))
      expect(first.id).toBeLessThan(once.id)
      expect(once.id).toBeLessThan(last.id)
      expect(await run(pets.list(everything))).toEqual([first, once, last])
      expect(await run(pets.list({ ...everything, status: 'sold' }))).toEqual([once])
      expect(await run(pets.findById(once.id))).toEqual(O.some(once))
    })

    it('adds no pet for a repeated creation: the repeat is the same pet of the same store', async () => {
      const { pets, creations } = await started()
      const created = await run(creations.addOnce(aCreation()))
      const again = await run(creations.addOnce(aCreation()))
      expect(again).toEqual(created)
      expect(await run(pets.list(everything))).toEqual([created])
    })

    it('authenticates a key it issued, and lists the calls counted under that key', async () => {
      const { apiKeys, usageLog } = await started()
      const issued = await run(apiKeys.issue('billing' as ApiKeyName))
      expect(await run(apiKeys.authenticate(issued.key))).toEqual(
        O.some({ keyId: issued.record.id, name: 'billing' }),
      )
      const lastCalledAt = new Date('2026-11-22T12:00:00Z')
      await run(usageLog.add([{ keyId: issued.record.id, operation: 'listPets', calls: 2, lastCalledAt }]))
      expect(await run(usageLog.list())).toEqual([
        { keyId: issued.record.id, operation: 'listPets', calls: 2, lastCalledAt },
      ])
    })

    it('lets its authenticator know a key its store issued, and refuse it once revoked', async () => {
      const { apiKeys, authenticator } = await started()
      const issued = await run(apiKeys.issue('billing' as ApiKeyName))
      expect(await run(authenticator.authenticate(issued.key))).toEqual(
        O.some({ keyId: issued.record.id, name: 'billing' }),
      )
      // Revoked through this storage: refused from the next call on.
      await run(apiKeys.revoke(issued.record.id))
      expect(await run(authenticator.authenticate(issued.key))).toEqual(O.none)
      expect(await run(authenticator.authenticate(`${issued.key}x`))).toEqual(O.none)
    })

    it('shares nothing with a storage opened apart', async () => {
      const one = await started()
      const other = await started()
      const pet = await run(one.pets.add(aPetData()))
      const issued = await run(one.apiKeys.issue('only-here' as ApiKeyName))
      expect(await run(other.pets.list(everything))).toEqual([])
      expect(await run(other.pets.findById(pet.id as PetId))).toEqual(O.none)
      expect(await run(other.apiKeys.authenticate(issued.key))).toEqual(O.none)
    })

    it('closes once started, and a second close does nothing', async () => {
      const storage = await open()
      await storage.start()
      await storage.close()
      await expect(storage.close()).resolves.toBeUndefined()
    })
  })
