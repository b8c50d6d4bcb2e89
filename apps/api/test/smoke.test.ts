import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './support/test-service.js'

describe('the service in-process on the in-memory adapters', () => {
  let svc: TestService
  beforeAll(async () => {
    svc = await startTestService()
  })
  afterAll(async () => {
    await svc.close()
  })

  it('adds a pet and lists it', async () => {
    const created = await svc.authed('/v1/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 7 }),
    })
    expect(created.status).toBe(201)
    const pet = await created.json()
    expect(pet).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'available' })
    const listed = await svc.authed('/v1/pets')
    expect(await listed.json()).toEqual([pet])
  })
})
