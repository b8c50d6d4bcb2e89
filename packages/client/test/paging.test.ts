import { run } from '@pets/domain/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetsClient, PetsClientFailure, type PetsClient } from '../src/index.js'
import { recordingClient } from './support/recording-client.js'
import { startService, type Service } from './support/start-service.js'

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

  it('follows a link of its own origin that holds credentials on its base URL, never sending them', async () => {
    const { client, sent } = recordingClient(svc)
    const href = `${svc.baseUrl.replace('://', '://user:s3cret@')}/pets?limit=3&after=3`
    const page = await run(client.listPets({ href }))
    expect(page.pets.map((p) => p.id)).toEqual([4, 5, 6])
    expect(sent.map((s) => s.url)).toEqual([`${svc.baseUrl}/pets?limit=3&after=3`])
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

describe('allPets on the pages of a fake service', () => {
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
})
