import { run, runLeft } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { createPetsClient, PetsClientFailure } from '../src/index.js'
import { answering } from './support/answering.js'

describe('the answers of the service that the client decodes', () => {
  it('answers UndecodableResponse naming the field of a pet that breaks the domain invariants', async () => {
    const client = answering(200, JSON.stringify([{ id: 1, name: '', categoryId: 1, status: 'available' }]))
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({ _tag: 'UndecodableResponse', status: 200 })
    expect(error._tag === 'UndecodableResponse' && error.reason).toMatch(/^0\.name /)
  })

  it('answers UndecodableResponse for a success status other than the operation’s', async () => {
    const client = answering(200, JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'available' }))
    expect(await runLeft(client.createPet({ name: 'Rex', categoryId: 1 }))).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'the status is 200, not 201',
    })
  })

  it('drops keys of a pet that the contract does not have', async () => {
    const client = answering(
      201,
      JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'sold', colour: 'red' }),
    )
    expect(await run(client.createPet({ name: 'Rex', categoryId: 1 }))).toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'sold',
    })
  })

  it('answers UndecodableResponse for a next link that points at the same page, which would never end', async () => {
    const client = answering(200, '[]', { Link: '<http://pets.test/v1/pets>; rel="next"' })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'the next link is this page',
    })
  })

  // A fake service whose pages are `pages[after]`, each linking to `links[after]`.
  const paged = (pages: Record<string, ReadonlyArray<number>>, links: Record<string, string>) =>
    createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      retry: { maxAttempts: 1 },
      fetch: async (input) => {
        const after = new URL(String(input)).searchParams.get('after') ?? '0'
        const pets = (pages[after] ?? []).map((id) => ({ id, name: `p${id}`, categoryId: 1, status: 'sold' }))
        const next = links[after]
        return new Response(JSON.stringify(pets), {
          status: 200,
          headers: {
            'Content-Type': 'application/json',
            ...(next === undefined ? {} : { Link: `<http://pets.test/v1/pets?after=${next}>; rel="next"` }),
          },
        })
      },
    })
  const walk = async (client: ReturnType<typeof paged>) => {
    const ids: Array<number> = []
    try {
      for await (const pet of client.allPets()) ids.push(pet.id)
    } catch (error) {
      return { ids, error }
    }
    return { ids, error: undefined }
  }

  it('ends allPets with a PetsClientFailure when next links go round, or back to pets already given', async () => {
    const round = await walk(paged({ '0': [1], '1': [2], '2': [] }, { '0': '1', '1': '2', '2': '1' }))
    expect(round.ids).toEqual([1, 2])
    expect(round.error).toBeInstanceOf(PetsClientFailure)
    expect((round.error as PetsClientFailure).error).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: expect.stringContaining('leads back to a page already read'),
    })
    const back = await walk(paged({ '0': [1, 2], '2': [2, 3] }, { '0': '2' }))
    expect(back.ids).toEqual([1, 2])
    expect((back.error as PetsClientFailure).error).toMatchObject({
      reason: 'pet 2 came after pet 2: ids must increase',
    })
    expect(await walk(paged({ '0': [1, 2], '2': [3] }, { '0': '2' }))).toEqual({
      ids: [1, 2, 3],
      error: undefined,
    })
  })

  it('answers UndecodableResponse when getPet gets another pet than the one asked for', async () => {
    const client = answering(200, JSON.stringify({ id: 77, name: 'Rex', categoryId: 1, status: 'sold' }))
    expect(await runLeft(client.getPet(1))).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'pet 1 was asked for, pet 77 came',
    })
    expect(await run(client.getPet(77))).toMatchObject({ id: 77 })
  })
})
