import { run, runLeft } from '@pets/domain/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetsClient, PetsClientFailure, type PetsClient } from '../src/index.js'
import { API_KEY, startService, type Service } from './support/start-service.js'

/** A client of `svc` that records the URL and headers of every request it sends. */
const recordingClient = (svc: Service, apiKey = API_KEY) => {
  const sent: Array<{ url: string; headers: Record<string, string> }> = []
  const client = createPetsClient({
    baseUrl: svc.baseUrl,
    apiKey,
    fetch: (input, init) => {
      sent.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } })
      return fetch(input, init)
    },
  })
  return { client, sent }
}

const collect = async <A>(items: AsyncIterable<A>): Promise<Array<A>> => {
  const all: Array<A> = []
  for await (const item of items) all.push(item)
  return all
}

const addPets = async (client: PetsClient, count: number) => {
  const statuses = ['available', 'pending', 'sold'] as const
  for (let i = 0; i < count; i++)
    await run(client.createPet({ name: `Pet ${i}`, categoryId: 1, status: statuses[i % 3]! }))
}

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

describe('paging with the client', () => {
  let svc: Service
  beforeAll(async () => {
    svc = await startService()
    await addPets(recordingClient(svc).client, 7)
  })
  afterAll(async () => {
    await svc.stop()
  })

  it('gives one page and the link to the next, which listPets follows', async () => {
    const { client } = recordingClient(svc)
    const first = await run(client.listPets({ limit: 3 }))
    expect(first.pets.map((p) => p.id)).toEqual([1, 2, 3])
    expect(first.next?.href).toBe(`${svc.baseUrl}/pets?limit=3&after=3`)
    const second = await run(client.listPets(first.next!))
    expect(second.pets.map((p) => p.id)).toEqual([4, 5, 6])
    const third = await run(client.listPets(second.next!))
    expect(third).toEqual({ pets: [expect.objectContaining({ id: 7 })], next: undefined })
  })

  it('iterates every pet exactly once by following the next links', async () => {
    const { client, sent } = recordingClient(svc)
    const pets = await collect(client.allPets({ limit: 2 }))
    expect(pets.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(sent.map((s) => s.url)).toEqual([
      `${svc.baseUrl}/pets?limit=2`,
      `${svc.baseUrl}/pets?limit=2&after=2`,
      `${svc.baseUrl}/pets?limit=2&after=4`,
      `${svc.baseUrl}/pets?limit=2&after=6`,
    ])
  })

  it('iterates only the pets of the status asked for, across pages', async () => {
    const { client } = recordingClient(svc)
    const sold = await collect(client.allPets({ status: 'sold', limit: 1 }))
    expect(sold.map((p) => [p.id, p.status])).toEqual([
      [3, 'sold'],
      [6, 'sold'],
    ])
  })

  it('throws a PetsClientFailure with the typed error when a page fails', async () => {
    const { client } = recordingClient(svc, 'not-a-key')
    const failure = await collect(client.allPets()).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(PetsClientFailure)
    expect((failure as PetsClientFailure).error).toMatchObject({ _tag: 'Unauthorized' })
  })
})

describe('the client and a service whose public base URL is elsewhere', () => {
  let svc: Service
  beforeAll(async () => {
    svc = await startService({ env: { PUBLIC_BASE_URL: 'https://api.example.com/v1' } })
    await addPets(recordingClient(svc).client, 3)
  })
  afterAll(async () => {
    await svc.stop()
  })

  it('follows next links on its own base URL and sends the API key nowhere else', async () => {
    const { client, sent } = recordingClient(svc)
    const pets = await collect(client.allPets({ limit: 1 }))
    expect(pets.map((p) => p.id)).toEqual([1, 2, 3])
    expect(sent.every((s) => s.url.startsWith(`${svc.baseUrl}/pets`))).toBe(true)
    expect(sent[1]?.url).toBe(`${svc.baseUrl}/pets?limit=1&after=1`)
  })

  it.each([
    'https://api.example.com/v1/pets?limit=1&after=1',
    'https://elsewhere.example/x/pets?limit=1&after=1',
  ])(
    'follows a page link the caller gives (%s) on its own base URL too: the API key goes nowhere else',
    async (href) => {
      const { client, sent } = recordingClient(svc)
      const page = await run(client.listPets({ href }))
      expect(page.pets.map((p) => p.id)).toEqual([2])
      expect(sent.map((s) => s.url)).toEqual([`${svc.baseUrl}/pets?limit=1&after=1`])
    },
  )

  it('refuses a page link that is no URL, before sending anything', () => {
    const { client, sent } = recordingClient(svc)
    expect(() => client.listPets({ href: 'http://[' })).toThrow(TypeError)
    expect(sent).toEqual([])
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
