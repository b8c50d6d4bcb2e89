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
})
