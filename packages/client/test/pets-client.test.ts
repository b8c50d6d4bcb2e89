import { run, runLeft } from '@pets/domain/testing'
import type { PetStatus } from '@pets/domain'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordingClient } from './support/recording-client.js'
import { startService, type Service } from './support/start-service.js'

describe('the client against the real service', () => {
  let svc: Service
  beforeAll(async () => {
    svc = await startService()
  })
  afterAll(async () => {
    await svc.stop()
  })

  it('adds a pet and returns it as the domain decodes it, with the default status', async () => {
    const { client } = recordingClient(svc)
    const pet = await run(client.createPet({ name: 'Rex', categoryId: 7 }))
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 7, status: 'available' })
    expect(await run(client.getPet(pet.id))).toEqual(pet)
  })

  it('sends no Idempotency-Key unless safe retries are asked for, then a UUID', async () => {
    const { client, sent } = recordingClient(svc)
    await run(client.createPet({ name: 'Plain', categoryId: 1 }))
    // Whether this service instance performs keyed creations is not what this test is about.
    await client.createPet({ name: 'Safe', categoryId: 1 }, { safeRetries: true })()
    expect(sent[0]?.headers['Idempotency-Key']).toBeUndefined()
    expect(sent[1]?.headers['Idempotency-Key']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })

  it('sends the object as given: a field the service does not keep gets its ValidationFailed, never dropped', async () => {
    const { client } = recordingClient(svc)
    const pet = { name: 'Tom', categoryId: 2, status: 'sold' as const, id: 99, owner: 'me' }
    const error = await runLeft(client.createPet(pet))
    expect(error).toMatchObject({ _tag: 'ValidationFailed', status: 400 })
    expect(error._tag === 'ValidationFailed' && error.message).toMatch(/id.*owner|owner.*id/)
    expect(await run(client.createPet({ name: 'Tom', categoryId: 2, status: 'sold' }))).toMatchObject({
      name: 'Tom',
    })
  })

  it('takes a status given as undefined (an optional field of a form, under exactOptionalPropertyTypes) as one left out', async () => {
    const { client } = recordingClient(svc)
    const form: { readonly name: string; readonly status?: PetStatus | undefined } = { name: 'Form' }
    const pet = await run(client.createPet({ name: form.name, categoryId: 3, status: form.status }))
    expect(pet).toMatchObject({ name: 'Form', status: 'available' })
  })

  it('refuses, as the service would and without sending anything, an Idempotency-Key no header can carry as given', async () => {
    const { client, sent } = recordingClient(svc)
    for (const key of [' k-77', 'k-77 ', 'order\n42', '', 'é', 'k'.repeat(256)]) {
      const error = await runLeft(client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: key }))
      expect(error, JSON.stringify(key)).toMatchObject({
        _tag: 'ValidationFailed',
        code: 'validation_failed',
        status: 400,
        message: expect.stringMatching(
          /^Invalid request: Idempotency-Key .+ \(refused by the client; nothing was sent\)\.$/,
        ),
        requestId: undefined,
      })
    }
    expect(sent).toEqual([])
    await run(client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'k 77' }))
    expect(sent[0]?.headers['Idempotency-Key']).toBe('k 77')
  })

  it('answers ValidationFailed naming each offending field of a pet the service refuses', async () => {
    const { client } = recordingClient(svc)
    const error = await runLeft(client.createPet({ name: '   ', categoryId: 0 }))
    expect(error).toMatchObject({ _tag: 'ValidationFailed', code: 'validation_failed', status: 400 })
    expect(error._tag === 'ValidationFailed' && error.message).toMatch(/name.*categoryId|categoryId.*name/)
  })

  it('answers ValidationFailed naming limit for a limit over 100', async () => {
    const { client } = recordingClient(svc)
    const error = await runLeft(client.listPets({ limit: 500 }))
    expect(error).toMatchObject({ _tag: 'ValidationFailed', status: 400 })
    expect(error._tag === 'ValidationFailed' && error.message).toContain('limit')
  })

  it('answers Unauthorized with the request id for a key the service does not know', async () => {
    const { client } = recordingClient(svc, 'not-a-key')
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({ _tag: 'Unauthorized', code: 'unauthorized', status: 401 })
    expect(error._tag === 'Unauthorized' && error.requestId).toMatch(/\S/)
  })

  it('answers NotFound for an id no pet has', async () => {
    const { client } = recordingClient(svc)
    expect(await runLeft(client.getPet(9_000_000))).toMatchObject({
      _tag: 'NotFound',
      code: 'not_found',
      status: 404,
    })
  })
})

describe('the client and the sunset of getPet', () => {
  let svc: Service
  beforeAll(async () => {
    svc = await startService({ clockNow: '2030-12-05T00:00:00Z' })
  })
  afterAll(async () => {
    await svc.stop()
  })

  it('answers Gone for getPet from 5 December 2030 on', async () => {
    const { client } = recordingClient(svc)
    const pet = await run(client.createPet({ name: 'Rex', categoryId: 1 }))
    expect(await runLeft(client.getPet(pet.id))).toMatchObject({ _tag: 'Gone', code: 'gone', status: 410 })
  })
})
