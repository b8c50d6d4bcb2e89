import { createHash } from 'node:crypto'
import { storeUnavailable, type PageCursor, type PetRepository } from '@pets/domain'
import { aCreation, describeIdempotentPetCreationsContract, run, runLeft } from '@pets/domain/testing'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { createMemoryIdempotentPetCreations, createMemoryPetRepository } from '../src/index.js'

const everything = { limit: 1000, after: 0 as PageCursor }

describeIdempotentPetCreationsContract('memory', async () => {
  const pets = createMemoryPetRepository()
  return { creations: createMemoryIdempotentPetCreations(pets), pets, close: async () => {} }
})

describe('memory idempotent pet creations', () => {
  it('records nothing when the pet could not be added, so a retry adds it', async () => {
    const pets = createMemoryPetRepository()
    let down = true
    const flaky: PetRepository = {
      ...pets,
      add: (data) => (down ? TE.left(storeUnavailable()) : pets.add(data)),
    }
    const creations = createMemoryIdempotentPetCreations(flaky)
    expect(await runLeft(creations.addOnce(aCreation()))).toEqual({ _tag: 'StoreUnavailable' })
    down = false
    // The failed request recorded nothing: the next one adds the pet, and a repeat adds nothing.
    const created = await run(creations.addOnce(aCreation()))
    expect(await run(pets.list(everything))).toEqual([created])
    expect(await run(creations.addOnce(aCreation()))).toEqual(created)
    expect(await run(pets.list(everything))).toEqual([created])
  })

  it('refuses a repeat at once while the first request is still adding its pet', async () => {
    const pets = createMemoryPetRepository()
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const slow: PetRepository = {
      ...pets,
      add: (data) =>
        TE.flatMap(
          TE.fromTask(() => held),
          () => pets.add(data),
        ),
    }
    const creations = createMemoryIdempotentPetCreations(slow)
    const first = creations.addOnce(aCreation())()
    expect(await runLeft(creations.addOnce(aCreation()))).toEqual({ _tag: 'IdempotencyKeyInUse' })
    release()
    const created = await run(() => first)
    expect(await run(creations.addOnce(aCreation()))).toEqual(created)
    expect(await run(pets.list(everything))).toEqual([created])
  })
  it('replays the pet as the repository gives it, and a failed read of it as StoreUnavailable', async () => {
    const pets = createMemoryPetRepository()
    let down = false
    const flaky: PetRepository = {
      ...pets,
      findById: (id) => (down ? TE.left(storeUnavailable()) : pets.findById(id)),
    }
    const creations = createMemoryIdempotentPetCreations(flaky)
    const created = await run(creations.addOnce(aCreation()))
    down = true
    expect(await runLeft(creations.addOnce(aCreation()))).toEqual({ _tag: 'StoreUnavailable' })
    down = false
    expect(await run(creations.addOnce(aCreation()))).toEqual(created)
    expect(await run(pets.list(everything))).toEqual([created])
  })

  it('tells SHA-256 fingerprints apart as HTTP makes them (lowercase hex), by every character', async () => {
    const pets = createMemoryPetRepository()
    const creations = createMemoryIdempotentPetCreations(pets)
    const fingerprint = createHash('sha256').update('{"categoryId":1,"name":"Rex"}').digest('hex')
    const created = await run(creations.addOnce(aCreation({ fingerprint })))
    expect(await run(creations.addOnce(aCreation({ fingerprint })))).toEqual(created)
    const other = createHash('sha256').update('{"categoryId":2,"name":"Rex"}').digest('hex')
    for (const changed of [
      other,
      fingerprint.toUpperCase(),
      `${fingerprint.slice(0, 63)}x`,
      fingerprint.slice(1),
    ])
      expect(await runLeft(creations.addOnce(aCreation({ fingerprint: changed })))).toEqual({
        _tag: 'IdempotencyKeyReused',
      })
    expect(await run(pets.list(everything))).toEqual([created])
  })
})
