import { fetchOf } from '@pets/adapters-http/testing'
import { createPetsClient } from '@pets/client'
import { createMemoryStorage } from '@pets/adapters-memory'
import { storeUnavailable, type Storage } from '@pets/domain'
import { aNewPet, run, runLeft } from '@pets/domain/testing'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { createInternalService, PETS_PREFIX } from '../src/index.js'

const CALLERS = { billing: 'billing-token', search: 'search-token' }

/** The internal service in this process, reached through fetchOf: no socket, no port. */
const startInternalService = (storage?: Storage) => {
  const url = 'http://intake.test'
  const service = createInternalService({ publicUrl: url, callers: CALLERS, ...(storage ? { storage } : {}) })
  const fetch = fetchOf(service.app)
  const client = (token = CALLERS.billing) =>
    createPetsClient({ baseUrl: `${url}${PETS_PREFIX}`, apiKey: token, fetch })
  const intake = (body: unknown) =>
    fetch(`${url}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  return { url, fetch, client, intake, useCases: service.useCases }
}

describe('the internal service that embeds the animal store', () => {
  it('takes an animal in through its own route, and the mounted pets API lists it as pending', async () => {
    const svc = startInternalService()
    const res = await svc.intake({ name: 'Rex', categoryId: 3 })
    expect(res.status).toBe(201)
    expect(await res.json()).toEqual({
      accepted: true,
      pet: { id: 1, name: 'Rex', categoryId: 3, status: 'pending' },
    })
    expect((await run(svc.client().listPets())).pets).toEqual([
      { id: 1, name: 'Rex', categoryId: 3, status: 'pending' },
    ])
  })

  it("answers its own route's invalid input in its own format, with the domain's issues", async () => {
    const svc = startInternalService()
    const res = await svc.intake({ name: ' ', categoryId: 'three' })
    expect(res.status).toBe(422)
    const body = (await res.json()) as { accepted: boolean; problems: Array<{ field: string }> }
    expect(body.accepted).toBe(false)
    expect(body.problems.map((p) => p.field)).toEqual(['name', 'categoryId'])
  })

  it("answers a body its own route's parser refuses with 400, the caller's mistake, not 500", async () => {
    const svc = startInternalService()
    const bodies = ['{', 'null', '"Rex"', '[]', '[{"name":"Rex","categoryId":1}]']
    for (const body of [...bodies, '{"name":"Rex","categoryId":1,"__proto__":{}}']) {
      const res = await svc.fetch(`${svc.url}/intake`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      })
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect(await res.json()).toEqual({ error: expect.stringMatching(/JSON|prototype/) })
    }
  })

  it('answers a body that is not JSON, or none, with 415 on its own route', async () => {
    const svc = startInternalService()
    const text = {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"name":"Rex","categoryId":1}',
    }
    for (const init of [text, { method: 'POST' }]) {
      const res = await svc.fetch(`${svc.url}/intake`, init)
      expect(res.status).toBe(415)
      expect(await res.json()).toEqual({ error: 'the body must be JSON (Content-Type: application/json)' })
    }
  })

  it('adds pets through the mounted pets API, reading the body that its own routes parse elsewhere', async () => {
    const svc = startInternalService()
    const pet = await run(svc.client().createPet({ name: 'Tom', categoryId: 2, status: 'sold' }))
    expect(pet).toEqual({ id: 1, name: 'Tom', categoryId: 2, status: 'sold' })
    const summary = await svc.fetch(`${svc.url}/intake/summary`)
    expect(await summary.json()).toEqual({ available: 0, pending: 0, sold: 1 })
  })

  it('counts pets by status in-process, through the use cases, across pages', async () => {
    const svc = startInternalService()
    const statuses = ['available', 'pending', 'sold'] as const
    for (let i = 0; i < 250; i++)
      await run(svc.useCases.createPet({ pet: aNewPet({ name: `Pet ${i}`, status: statuses[i % 3]! }) }))
    const summary = await svc.fetch(`${svc.url}/intake/summary`)
    expect(await summary.json()).toEqual({ available: 84, pending: 83, sold: 83 })
  })

  it('serves paging links under its own prefix, which the client follows', async () => {
    const svc = startInternalService()
    for (const name of ['A', 'B', 'C']) await svc.intake({ name, categoryId: 1 })
    const first = await run(svc.client().listPets({ limit: 2 }))
    expect(first.next?.href).toBe(`${svc.url}${PETS_PREFIX}/pets?limit=2&after=2`)
    const all = []
    for await (const pet of svc.client().allPets({ limit: 1 })) all.push(pet.name)
    expect(all).toEqual(['A', 'B', 'C'])
  })

  it('adds a pet once when the client retries a creation whose response was lost', async () => {
    const svc = startInternalService()
    let lost = 0
    const client = createPetsClient({
      baseUrl: `${svc.url}${PETS_PREFIX}`,
      apiKey: CALLERS.billing,
      sleep: async () => {},
      // The first request reaches the service, but its response never reaches the client.
      fetch: async (input, init) => {
        const res = await svc.fetch(input, init)
        if (lost++ === 0) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })
        return res
      },
    })
    const pet = await run(client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true }))
    expect(lost).toBe(2)
    expect((await run(svc.client().listPets())).pets).toEqual([pet])
  })

  it('lets only its own callers into the pets API: 401 for a token it does not know', async () => {
    const svc = startInternalService()
    expect(await runLeft(svc.client('not-a-caller').listPets())).toMatchObject({
      _tag: 'Unauthorized',
      status: 401,
    })
    const search = await run(svc.client(CALLERS.search).listPets())
    expect(search.pets).toEqual([])
  })

  it('answers paths outside the prefix itself, and unknown paths under it as the pets API does', async () => {
    const svc = startInternalService()
    const outside = await svc.fetch(`${svc.url}/nowhere`)
    expect(outside.status).toBe(404)
    expect(await outside.json()).toEqual({ error: 'nothing at /nowhere' })
    const inside = await svc.fetch(`${svc.url}${PETS_PREFIX}/nowhere`, {
      headers: { Authorization: `Bearer ${CALLERS.billing}` },
    })
    expect(inside.status).toBe(404)
    expect(await inside.json()).toMatchObject({ code: 'not_found', status: 404 })
    expect((await svc.fetch(`${svc.url}/healthz`)).status).toBe(200)
  })

  it('answers 503 with its reason when the catalogue cannot be reached, on its own routes', async () => {
    const memory = createMemoryStorage()
    const down = () => TE.left(storeUnavailable(new Error('the store is down')))
    const svc = startInternalService({ ...memory, pets: { ...memory.pets, add: down, list: down } })
    for (const res of [
      await svc.intake({ name: 'Rex', categoryId: 3 }),
      await svc.fetch(`${svc.url}/intake/summary`),
    ]) {
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ error: 'the catalogue cannot be reached' })
    }
  })

  it('answers a method its own route does not take with 405, its Allow, and a body that says so', async () => {
    const svc = startInternalService()
    const wrong = await svc.fetch(`${svc.url}/intake`)
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('POST')
    expect(await wrong.json()).toEqual({ error: 'GET is not allowed at /intake (Allow: POST)' })
  })
})
