import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { expectOneCreation } from './support/one-creation.js'
import { startTestService, type ChildService } from './support/test-service.js'

const post = (url: string, body: string, key: string) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: 'Bearer k1', 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body,
  })

// CONTRACT: a key is performed at most once across every process on one database.
describe('Idempotency-Key across two service processes on one PostgreSQL database', () => {
  const opened: Array<FreshDatabase> = []
  const started: Array<ChildService> = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map((svc) => svc.stop()))
    for (const database of opened.splice(0)) await database.close()
  })
  const twoServices = async () => {
    const database = await openFreshDatabase(inject('postgres'))
    opened.push(database)
    const env = { DATABASE_URL: database.url, API_KEYS: 'k1', MIGRATE_ON_START: 'false' }
    // A loaded machine may take a while to start two processes.
    const services = await Promise.all([
      startTestService({ mode: 'child', env, timeoutMs: 30_000 }),
      startTestService({ mode: 'child', env, timeoutMs: 30_000 }),
    ])
    started.push(...services)
    return { database, a: services[0], b: services[1] }
  }

  it(
    'adds one pet for 50 concurrent requests with one key spread over both',
    { timeout: 90_000 },
    async () => {
      const { database, a, b } = await twoServices()
      const body = '{"name":"Rex","categoryId":1}'
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => post(i % 2 ? b.url : a.url, body, 'once')),
      )
      const id = await expectOneCreation(database.pool, answers)
      // Whichever process a retry reaches, it gets the same pet; another body, 422.
      for (const url of [a.url, b.url]) {
        const again = await post(url, ' {"categoryId":1, "name":"Rex"}', 'once')
        expect(again.status).toBe(201)
        expect(((await again.json()) as { id: number }).id).toBe(id)
        expect((await post(url, '{"name":"Tom","categoryId":1}', 'once')).status).toBe(422)
      }
      // Retries of the finished request, 60 at once over both: each gets the pet, or 422 for another body.
      const bodies = Array.from({ length: 60 }, (_, i) =>
        i % 6 === 5 ? '{"name":"Tom","categoryId":1}' : body,
      )
      const retries = await Promise.all(bodies.map((b2, i) => post(i % 2 ? b.url : a.url, b2, 'once')))
      const statuses = await Promise.all(
        retries.map(async (r) => [r.status, ((await r.json()) as { id?: number }).id]),
      )
      expect(statuses).toEqual(bodies.map((b2) => (b2 === body ? [201, id] : [422, undefined])))
      expect((await database.pool.query('SELECT id FROM pets')).rows).toHaveLength(1)
    },
  )
})
