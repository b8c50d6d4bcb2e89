import {
  createPet,
  getPet,
  GET_PET_SUNSET,
  listPets,
  type NewPet,
  type PageLimit,
  type PetId,
} from '@pets/domain'
import { aClock, aNewPet, run, runLeft } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import { createMemoryPetRepository } from '../src/index.js'

// The use cases of the domain on the in-memory adapters: how a service embeds us without HTTP.
const setUp = () => {
  const pets = createMemoryPetRepository()
  const clock = aClock('2026-11-22T12:00:00Z')
  const create = (pet: NewPet) => createPet({ pets })({ pet })
  return { clock, create, list: listPets({ pets }), get: getPet({ pets, clock }) }
}
const limit = (n: number) => n as PageLimit

describe('use cases on the in-memory adapters', () => {
  it('createPet makes a pet available when no status is given, and keeps the one given', async () => {
    const { create } = setUp()
    expect(await run(create(aNewPet({ name: 'Rex' })))).toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    })
    expect(await run(create(aNewPet({ status: 'sold' })))).toMatchObject({ id: 2, status: 'sold' })
  })

  it('listPets pages in id order and says where the next page starts', async () => {
    const { create, list } = setUp()
    for (let i = 0; i < 5; i++) await run(create(aNewPet({ name: `pet ${i}` })))
    const first = await run(list({ limit: limit(2) }))
    expect(first.pets.map((p) => p.id)).toEqual([1, 2])
    expect(first.next).toEqual(O.some(2))
    const last = await run(list({ limit: limit(2), after: 4 as never }))
    expect(last.pets.map((p) => p.id)).toEqual([5])
    expect(last.next).toEqual(O.none)
    const exact = await run(list({ limit: limit(5) }))
    expect(exact.next).toEqual(O.none)
  })

  it('listPets filters by status and pages within the filter', async () => {
    const { create, list } = setUp()
    for (const status of ['sold', 'available', 'sold', 'pending', 'sold'] as const)
      await run(create(aNewPet({ status })))
    const page = await run(list({ limit: limit(2), status: 'sold' }))
    expect(page.pets.map((p) => p.id)).toEqual([1, 3])
    expect(page.next).toEqual(O.some(3))
    const rest = await run(list({ limit: limit(2), status: 'sold', after: 3 as never }))
    expect(rest.pets.map((p) => p.id)).toEqual([5])
    expect(rest.next).toEqual(O.none)
  })

  it('getPet finds a pet, and says PetNotFound for an unknown id', async () => {
    const { create, get } = setUp()
    const pet = await run(create(aNewPet()))
    expect(await run(get(pet.id))).toEqual(pet)
    expect(await runLeft(get(99 as PetId))).toEqual({ _tag: 'PetNotFound', id: 99 })
  })

  it('getPet is Gone from the sunset instant on, for every id', async () => {
    const { create, get, clock } = setUp()
    const pet = await run(create(aNewPet()))
    clock.set(new Date(GET_PET_SUNSET.getTime() - 1))
    expect(await run(get(pet.id))).toEqual(pet)
    clock.set(GET_PET_SUNSET)
    expect(await runLeft(get(pet.id))).toEqual({ _tag: 'Gone', operation: 'getPet', sunset: GET_PET_SUNSET })
    expect(await runLeft(get(99 as PetId))).toMatchObject({ _tag: 'Gone' })
  })
})
