import { run, runLeft } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
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

  it('answers UndecodableResponse when getPet gets another pet than the one asked for', async () => {
    const client = answering(200, JSON.stringify({ id: 77, name: 'Rex', categoryId: 1, status: 'sold' }))
    expect(await runLeft(client.getPet(1))).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'pet 1 was asked for, pet 77 came',
    })
    expect(await run(client.getPet(77))).toMatchObject({ id: 77 })
  })
})
