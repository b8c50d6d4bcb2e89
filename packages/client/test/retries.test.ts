import { run, runLeft } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetsClient, type RetryOptions } from '../src/index.js'
import { errorBody, startStubServer, type StubAnswer } from './support/stub-server.js'

const rex = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
const unavailable = (retryAfter?: string): StubAnswer => ({
  status: 503,
  headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
  body: errorBody(503, 'unavailable'),
})
const rateLimited = (retryAfter: string): StubAnswer => ({
  status: 429,
  headers: { 'Retry-After': retryAfter },
  body: errorBody(429, 'rate_limited'),
})
const created: StubAnswer = { status: 201, body: rex }
const listed: StubAnswer = { status: 200, body: [rex] }

let stub: Awaited<ReturnType<typeof startStubServer>> | undefined
afterEach(async () => {
  await stub?.close()
  stub = undefined
})

/** A stub that gives `answers`, and a client of it whose sleeps are recorded instead of waited. */
const clientOfStub = async (answers: ReadonlyArray<StubAnswer>, retry: RetryOptions = {}) => {
  stub = await startStubServer(answers)
  const slept: Array<number> = []
  const client = createPetsClient({
    baseUrl: stub.baseUrl,
    apiKey: 'k',
    retry,
    sleep: async (ms) => void slept.push(ms),
  })
  return { client, slept, seen: stub.seen }
}

describe('retries of the client', () => {
  it('retries a 503 of a listing after the seconds of its Retry-After', async () => {
    const { client, slept, seen } = await clientOfStub([unavailable('2'), listed])
    expect((await run(client.listPets())).pets).toEqual([rex])
    expect(slept).toEqual([2000])
    expect(seen).toHaveLength(2)
  })

  it('retries a 429 after its Retry-After, even for a POST without Idempotency-Key', async () => {
    const { client, slept, seen } = await clientOfStub([rateLimited('1'), rateLimited('3'), created])
    expect(await run(client.createPet({ name: 'Rex', categoryId: 1 }))).toEqual(rex)
    expect(slept).toEqual([1000, 3000])
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST', 'POST'])
  })

  it('does not retry a 503 of a POST without Idempotency-Key: the pet may have been added', async () => {
    const { client, slept, seen } = await clientOfStub([unavailable('1'), created])
    expect(await runLeft(client.createPet({ name: 'Rex', categoryId: 1 }))).toMatchObject({
      _tag: 'Unavailable',
      retryAfterSeconds: 1,
    })
    expect(slept).toEqual([])
    expect(seen).toHaveLength(1)
  })

  it('retries a 503 of a POST with safe retries, sending the same generated key every time', async () => {
    const { client, seen } = await clientOfStub([unavailable('1'), unavailable('1'), created])
    expect(await run(client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true }))).toEqual(rex)
    const keys = seen.map((r) => r.headers['idempotency-key'])
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys).toEqual([keys[0], keys[0], keys[0]])
    expect(seen.map((r) => r.body)).toEqual(Array(3).fill('{"name":"Rex","categoryId":1}'))
  })

  it('gives each createPet call with safe retries a key of its own', async () => {
    const { client, seen } = await clientOfStub([created, created])
    await run(client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true }))
    await run(client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true }))
    expect(seen[0]?.headers['idempotency-key']).not.toBe(seen[1]?.headers['idempotency-key'])
  })

  it("sends the caller's own Idempotency-Key and reuses it when the task runs again", async () => {
    const { client, seen } = await clientOfStub([created, created])
    const task = client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-17' })
    await run(task)
    await run(task)
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(['order-17', 'order-17'])
  })

  it('retries a lost response of a POST with safe retries, and a 409 while the first still runs', async () => {
    const inUse: StubAnswer = { status: 409, body: errorBody(409, 'idempotency_key_in_use') }
    const { client, slept, seen } = await clientOfStub(['drop', inUse, created], { defaultDelayMs: 250 })
    expect(await run(client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true }))).toEqual(rex)
    expect(slept).toEqual([250, 250])
    expect(new Set(seen.map((r) => r.headers['idempotency-key'])).size).toBe(1)
  })

  it('does not retry a lost response of a POST without Idempotency-Key', async () => {
    const { client, seen } = await clientOfStub(['drop', created])
    expect(await runLeft(client.createPet({ name: 'Rex', categoryId: 1 }))).toMatchObject({
      _tag: 'NetworkFailure',
    })
    expect(seen).toHaveLength(1)
  })

  it('gives up after maxAttempts and returns the last Unavailable', async () => {
    const { client, slept, seen } = await clientOfStub(
      [unavailable('1'), unavailable('1'), unavailable('4'), listed],
      {
        maxAttempts: 3,
      },
    )
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'Unavailable', retryAfterSeconds: 4 })
    expect(slept).toEqual([1000, 1000])
    expect(seen).toHaveLength(3)
  })

  it('does not wait when the Retry-After would take the total wait past maxTotalWaitMs', async () => {
    const { client, slept } = await clientOfStub([rateLimited('2'), rateLimited('60'), listed], {
      maxTotalWaitMs: 10_000,
    })
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'RateLimited', retryAfterSeconds: 60 })
    expect(slept).toEqual([2000])
  })

  it('waits when the Retry-After takes the total wait to exactly maxTotalWaitMs', async () => {
    const { client, slept } = await clientOfStub([rateLimited('2'), rateLimited('3'), listed], {
      maxTotalWaitMs: 5_000,
    })
    expect((await run(client.listPets())).pets).toEqual([rex])
    expect(slept).toEqual([2000, 3000])
  })

  it.each([502, 504])(
    "retries a gateway's %i as a lost response: a listing, a keyed POST, never an unkeyed POST",
    async (status) => {
      const gateway: StubAnswer = { status, body: '<html>no answer from upstream</html>' }
      const listing = await clientOfStub([gateway, listed], { defaultDelayMs: 300 })
      expect((await run(listing.client.listPets())).pets).toEqual([rex])
      expect(listing.slept).toEqual([300])
      await stub?.close()
      const keyed = await clientOfStub([gateway, { ...gateway, headers: { 'Retry-After': '2' } }, created])
      expect(
        await run(keyed.client.createPet({ name: 'Rex', categoryId: 1 }, { safeRetries: true })),
      ).toEqual(rex)
      expect(keyed.slept).toEqual([1000, 2000])
      await stub?.close()
      const unkeyed = await clientOfStub([gateway, created])
      expect(await runLeft(unkeyed.client.createPet({ name: 'Rex', categoryId: 1 }))).toMatchObject({
        status,
      })
      expect(unkeyed.seen).toHaveLength(1)
    },
  )

  it('waits defaultDelayMs for a 503 without Retry-After', async () => {
    const { client, slept } = await clientOfStub([unavailable(), listed], { defaultDelayMs: 500 })
    await run(client.listPets())
    expect(slept).toEqual([500])
  })

  it('never retries with maxAttempts 1', async () => {
    const { client, seen } = await clientOfStub([rateLimited('1'), listed], { maxAttempts: 1 })
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'RateLimited' })
    expect(seen).toHaveLength(1)
  })

  it('does not retry an error that retrying cannot mend', async () => {
    const { client, seen } = await clientOfStub([
      { status: 500, body: errorBody(500, 'internal_error') },
      listed,
    ])
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'InternalError' })
    expect(seen).toHaveLength(1)
  })

  it('turns an attempt that outlasts timeoutMs into a NetworkFailure', async () => {
    stub = await startStubServer(['hang'])
    const client = createPetsClient({
      baseUrl: stub.baseUrl,
      apiKey: 'k',
      timeoutMs: 50,
      retry: { maxAttempts: 1 },
    })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'NetworkFailure',
      reason: 'no answer within 50 ms',
    })
  })
})
