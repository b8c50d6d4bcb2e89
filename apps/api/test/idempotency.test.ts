import { pollUntil } from '@pets/domain/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectError } from './http/expect-error.js'
import { startTestService, TEST_KEYS, type TestService } from './support/test-service.js'

const REX = '{"name":"Rex","categoryId":1}'

// CONTRACT: Idempotency-Key on POST /v1/pets, over real HTTP, for each storage.
describe.each(['memory', 'postgres'] as const)('Idempotency-Key on POST /v1/pets (%s)', (storage) => {
  let svc: TestService
  beforeEach(async () => {
    // With CLOCK_NOW, records follow the service's clock (the test's), not the database's: so the
    // 24 hours can be walked through below.
    svc = await startTestService({ storage, env: { CLOCK_NOW: '2026-11-22T12:00:00Z' } })
  })
  afterEach(async () => {
    await svc.close()
  })
  const post = (body: string, key?: string, apiKey: string = TEST_KEYS[0]) =>
    svc.request('/v1/pets', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        ...(key === undefined ? {} : { 'Idempotency-Key': key }),
      },
      body,
    })
  const listAll = async () => (await (await svc.authed('/v1/pets?limit=100')).json()) as Array<{ id: number }>

  it('answers a retry with the first answer: 201, the same pet, the same Location', async () => {
    const first = await post(REX, 'retry-1')
    const again = await post(' { "categoryId": 1, "name": "Rex" } ', 'retry-1')
    expect([first.status, again.status]).toEqual([201, 201])
    const pet = (await first.json()) as { id: number }
    expect(await again.json()).toEqual(pet)
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(await listAll()).toEqual([pet])
  })

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    await post(REX, 'retry-1')
    await expectError(await post('{"name":"Tom","categoryId":1}', 'retry-1'), 422, 'idempotency_key_reused')
    expect(await listAll()).toHaveLength(1)
  })

  it('keeps the same key of another API key apart', async () => {
    const mine = (await (await post(REX, 'shared')).json()) as { id: number }
    const theirs = await post('{"name":"Tom","categoryId":2}', 'shared', TEST_KEYS[1])
    expect(theirs.status).toBe(201)
    expect(((await theirs.json()) as { id: number }).id).not.toBe(mine.id)
    expect(await listAll()).toHaveLength(2)
  })

  it('adds one pet for 50 concurrent requests with one key; the others get it or 409', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(REX, 'concurrent')))
    const pets = await listAll()
    expect(pets).toHaveLength(1)
    for (const answer of answers) {
      if (answer.status === 201) expect(await answer.json()).toEqual(pets[0])
      else await expectError(answer, 409, 'idempotency_key_in_use')
    }
  })

  it('performs the request again once its record is over 24 hours old', async () => {
    const first = (await (await post(REX, 'daily')).json()) as { id: number }
    svc.clock.set('2026-11-23T12:00:00Z')
    expect(await (await post(REX, 'daily')).json()).toEqual(first)
    svc.clock.set('2026-11-23T12:00:00.001Z')
    const second = (await (await post('{"name":"Tom","categoryId":1}', 'daily')).json()) as { id: number }
    expect(second.id).toBeGreaterThan(first.id)
  })

  it('answers 400 validation_failed naming Idempotency-Key for a key of 256 characters', async () => {
    const { message } = await expectError(await post(REX, 'k'.repeat(256)), 400, 'validation_failed')
    expect(message).toContain('Idempotency-Key')
    expect(await listAll()).toEqual([])
  })
})

describe('expired idempotency records on PostgreSQL', () => {
  it('are removed by the service itself, so the table stays bounded', async () => {
    const svc = await startTestService({
      storage: 'postgres',
      env: { IDEMPOTENCY_CLEANUP_MS: '100', CLOCK_NOW: '2026-11-22T12:00:00Z' },
    })
    try {
      const { pool } = svc.database!
      const count = async () =>
        Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM idempotency_records')).rows[0]!.n)
      for (const key of ['a', 'b', 'c'])
        await svc.authed('/v1/pets', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: REX,
        })
      expect(await count()).toBe(3)
      svc.clock.set('2026-11-23T12:00:01Z')
      // The removal runs on the service's own timer, against a real database: polled, with a deadline.
      await pollUntil('the expired records are removed', async () => (await count()) === 0)
      expect(await count()).toBe(0)
      // The pets stay.
      expect(await (await svc.authed('/v1/pets')).json()).toHaveLength(3)
    } finally {
      await svc.close()
    }
  })
})
