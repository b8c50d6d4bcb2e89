import { getEventListeners } from 'node:events'
import { run, runLeft } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createPetsClient,
  describeClientError,
  PetsClientFailure,
  type PetsClientOptions,
} from '../src/index.js'
import { sleepFor, type Sleep } from '../src/abortable.js'
import { errorBody, startStubServer, type StubAnswer } from './support/stub-server.js'

const rex = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
const unavailable: StubAnswer = {
  status: 503,
  headers: { 'Retry-After': '5' },
  body: errorBody(503, 'unavailable'),
}

let stub: Awaited<ReturnType<typeof startStubServer>> | undefined
afterEach(async () => {
  await stub?.close()
  stub = undefined
})

const clientOfStub = async (answers: ReadonlyArray<StubAnswer>, options: Partial<PetsClientOptions> = {}) => {
  stub = await startStubServer(answers)
  return { client: createPetsClient({ baseUrl: stub.baseUrl, apiKey: 'k', ...options }), seen: stub.seen }
}

/** A signal that aborts after `ms`, with `reason`. */
const abortingAfter = (ms: number, reason?: unknown) => {
  const controller = new AbortController()
  setTimeout(() => controller.abort(reason), ms)
  return controller.signal
}

/** A signal that aborts once the stub has seen `count` requests: during the attempt that sent the last. */
const abortingOnceSeen = (seen: ReadonlyArray<unknown>, count: number) => {
  const controller = new AbortController()
  const poll = setInterval(() => {
    if (seen.length < count) return
    clearInterval(poll)
    controller.abort()
  }, 5)
  return controller.signal
}

/** Runs `task`, and how long it took in ms. */
const timed = async <A>(task: () => Promise<A>) => {
  const started = performance.now()
  const result = await task()
  return { result, ms: performance.now() - started }
}

describe('a call the caller aborts through its signal', () => {
  it('ends at once during an attempt as Aborted, not as a NetworkFailure that is retried', async () => {
    const { client, seen } = await clientOfStub(['hang', 'hang', 'hang'])
    const signal = abortingOnceSeen(seen, 1)
    const { result, ms } = await timed(() => client.listPets({}, { signal })())
    expect(result).toEqual({
      _tag: 'Left',
      left: {
        _tag: 'Aborted',
        reason: 'aborted during attempt 1',
        cause: expect.objectContaining({ name: 'AbortError' }),
      },
    })
    expect(ms).toBeLessThan(1000)
    expect(seen).toHaveLength(1)
  })

  it('ends at once during a wait between attempts, and sends nothing more', async () => {
    // Aborted 20 ms into the wait (the 503's Retry-After: 5 s), however long the first attempt took: the
    // client's own sleep, which must wake at the abort.
    const controller = new AbortController()
    const sleep: Sleep = (ms, signal) => {
      setTimeout(() => controller.abort(), 20)
      return sleepFor(ms, signal)
    }
    const { client, seen } = await clientOfStub([unavailable, { status: 200, body: [rex] }], { sleep })
    const { result, ms } = await timed(() => runLeft(client.listPets({}, { signal: controller.signal })))
    expect(result).toMatchObject({
      _tag: 'Aborted',
      reason: 'aborted while waiting to retry, after attempt 1',
    })
    // Far under the 5 s the 503 asked for, whatever the first attempt took on a busy machine.
    expect(ms).toBeLessThan(4000)
    expect(seen).toHaveLength(1)
  })

  it('stops waiting even when the sleep given to the client does not listen to the signal', async () => {
    const sleep = () => new Promise<void>(() => {})
    const { client } = await clientOfStub([unavailable], { sleep })
    expect(await runLeft(client.getPet(1, { signal: abortingAfter(50) }))).toMatchObject({ _tag: 'Aborted' })
  })

  it('sends nothing when the signal is aborted already, and keeps its reason as the cause', async () => {
    const { client, seen } = await clientOfStub([{ status: 200, body: [rex] }])
    const reason = new Error('shutting down')
    const error = await runLeft(client.listPets({ limit: 5 }, { signal: AbortSignal.abort(reason) }))
    expect(error).toEqual({ _tag: 'Aborted', reason: 'aborted before anything was sent', cause: reason })
    expect(describeClientError(error)).toBe(
      'the call to the animal store was aborted before anything was sent',
    )
    expect(seen).toEqual([])
  })

  it('does not retry an aborted createPet, even with safe retries', async () => {
    const { client, seen } = await clientOfStub(['hang', { status: 201, body: rex }], {
      sleep: async () => {},
    })
    const pet = { name: 'Rex', categoryId: 1 }
    const signal = abortingOnceSeen(seen, 1)
    expect(await runLeft(client.createPet(pet, { safeRetries: true, signal }))).toMatchObject({
      _tag: 'Aborted',
      reason: 'aborted during attempt 1',
    })
    expect(seen).toHaveLength(1)
  })

  it('ends allPets with a PetsClientFailure whose error is Aborted and whose cause is the reason', async () => {
    const { client } = await clientOfStub(['hang'])
    const reason = new Error('the caller left')
    const walk = async () => {
      for await (const _ of client.allPets({}, { signal: abortingAfter(50, reason) })) void _
    }
    const failure: unknown = await walk().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(PetsClientFailure)
    expect((failure as PetsClientFailure).error).toMatchObject({ _tag: 'Aborted', cause: reason })
    expect((failure as PetsClientFailure).cause).toBe(reason)
  })

  it('takes an AbortError of its own fetch (a signal of its own) as an abort, not retried', async () => {
    let calls = 0
    const client = createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      sleep: async () => {},
      fetch: async () => {
        calls++
        throw new DOMException('This operation was aborted', 'AbortError')
      },
    })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'Aborted',
      reason: 'aborted during attempt 1, by its fetch',
    })
    expect(calls).toBe(1)
  })

  it('still times an attempt out as a NetworkFailure when the signal does not abort', async () => {
    const { client } = await clientOfStub(['hang'], { timeoutMs: 50, retry: { maxAttempts: 1 } })
    expect(await runLeft(client.listPets({}, { signal: new AbortController().signal }))).toMatchObject({
      _tag: 'NetworkFailure',
      reason: 'no answer within 50 ms',
    })
  })

  it('leaves no listener on a signal that outlives its calls', async () => {
    const { client } = await clientOfStub(
      [unavailable, { status: 200, body: [rex] }, { status: 200, body: [] }],
      {
        sleep: async () => {},
      },
    )
    const signal = new AbortController().signal
    await run(client.listPets({}, { signal }))
    await run(client.listPets({}, { signal }))
    expect(getEventListeners(signal, 'abort')).toEqual([])
  })
})
