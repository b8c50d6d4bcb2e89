import { runLeft } from '@pets/domain/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createPetsClient } from '../src/index.js'

/** A client whose fetch is `fetch`, never retried. */
const clientWhoseFetch = (fetch: typeof globalThis.fetch, timeoutMs?: number) =>
  createPetsClient({
    baseUrl: 'http://pets.test/v1',
    apiKey: 'k',
    retry: { maxAttempts: 1 },
    timeoutMs,
    fetch,
  })

/** A body that never ends, calling `onRead` when it is read, and a promise of the reason it was cancelled with. */
const endlessBody = (onRead: () => void = () => {}) => {
  let cancelled = (_reason: unknown) => {}
  const cancel = new Promise<unknown>((resolve) => (cancelled = resolve))
  // highWaterMark 0: the stream pulls only for a read, not as soon as it is made.
  const body = new ReadableStream<Uint8Array>(
    { pull: onRead, cancel: (reason) => cancelled(reason) },
    { highWaterMark: 0 },
  )
  return { body, cancel }
}

const unhandled: Array<unknown> = []
const noteUnhandled = (reason: unknown) => void unhandled.push(reason)
afterEach(() => {
  vi.useRealTimers()
  process.off('unhandledRejection', noteUnhandled)
  unhandled.length = 0
})

// A fetch of its own (a mock, a wrapper that drops `init`) may never listen to `init.signal`.
describe('a fetch that ignores the signal the client gives it', () => {
  it('still times the attempt out as a NetworkFailure, at timeoutMs', async () => {
    vi.useFakeTimers()
    const client = clientWhoseFetch(() => new Promise<Response>(() => {}), 50)
    let failure: unknown
    void runLeft(client.listPets()).then((left) => (failure = left))
    await vi.advanceTimersByTimeAsync(49)
    expect(failure).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(failure).toMatchObject({
      _tag: 'NetworkFailure',
      reason: 'no answer within 50 ms',
      cause: expect.objectContaining({ name: 'TimeoutError' }),
    })
  })

  it("still ends the call at the caller's abort, and cancels the body of an answer that comes after", async () => {
    const controller = new AbortController()
    let answer = (_res: Response) => {}
    const client = clientWhoseFetch(() => {
      controller.abort()
      return new Promise<Response>((resolve) => (answer = resolve))
    })
    const reason = await runLeft(client.listPets({}, { signal: controller.signal }))
    expect(reason).toMatchObject({ _tag: 'Aborted', reason: 'aborted during attempt 1' })
    const { body, cancel } = endlessBody()
    answer(new Response(body))
    expect(await cancel).toBeDefined()
  })

  it('leaves no rejection unhandled when the fetch fails after the abort', async () => {
    process.on('unhandledRejection', noteUnhandled)
    const controller = new AbortController()
    let fail = (_error: unknown) => {}
    const client = clientWhoseFetch(() => {
      controller.abort()
      return new Promise<Response>((_, reject) => (fail = reject))
    })
    expect(await runLeft(client.listPets({}, { signal: controller.signal }))).toMatchObject({
      _tag: 'Aborted',
    })
    fail(new TypeError('fetch failed'))
    // Node reports an unhandled rejection once the microtasks that could handle it have run.
    await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })

  it('ends the call at an abort while the body is read, and cancels the body', async () => {
    const controller = new AbortController()
    const { body, cancel } = endlessBody(() => controller.abort())
    const client = clientWhoseFetch(async () => new Response(body, { status: 200 }))
    expect(await runLeft(client.listPets({}, { signal: controller.signal }))).toMatchObject({
      _tag: 'Aborted',
      reason: 'aborted during attempt 1',
    })
    expect(await cancel).toBeDefined()
  })
})
