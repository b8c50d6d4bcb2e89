import { fetchOf } from '@pets/adapters-http/testing'
import { createService, loadConfig, type AnimalStoreService } from '@pets/api'
import { aClock, run, runLeft } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetsClient } from '../src/index.js'
import { API_KEY } from './support/start-service.js'

const BASE_URL = 'http://pets.test/v1'

describe('the client against the real service in-process, through fetchOf (no socket, no port)', () => {
  let service: AnimalStoreService
  beforeAll(async () => {
    const config = loadConfig({
      API_KEYS: API_KEY,
      LOG_LEVEL: 'silent',
      STORAGE: 'memory',
      PUBLIC_BASE_URL: BASE_URL,
    })
    if (E.isLeft(config)) throw new Error(config.left.join('; '))
    service = await createService(config.right, { clock: aClock('2026-11-22T12:00:00Z') })
  })
  afterAll(async () => {
    await service.close()
  })

  it('adds pets, pages through them by their Link, and is refused with a key the service does not know', async () => {
    const fetch = fetchOf(service.app)
    const client = createPetsClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch })
    for (const name of ['Rex', 'Tom', 'Ida']) await run(client.createPet({ name, categoryId: 1 }))
    const first = await run(client.listPets({ limit: 2 }))
    expect(first.pets.map((pet) => pet.name)).toEqual(['Rex', 'Tom'])
    expect(first.next?.href).toBe(`${BASE_URL}/pets?limit=2&after=2`)
    const names: Array<string> = []
    for await (const pet of client.allPets({ limit: 2 })) names.push(pet.name)
    expect(names).toEqual(['Rex', 'Tom', 'Ida'])
    const stranger = createPetsClient({ baseUrl: BASE_URL, apiKey: 'not-a-key', fetch })
    expect(await runLeft(stranger.listPets())).toMatchObject({ _tag: 'Unauthorized', status: 401 })
  })
})
