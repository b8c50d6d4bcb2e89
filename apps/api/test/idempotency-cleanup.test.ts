import { storeUnavailable } from '@pets/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startIdempotencyCleanup, type IdempotencyCleanup } from '../src/idempotency-cleanup.js'

const recordingLogger = () => {
  const lines: Array<string> = []
  const line = (first: unknown, second?: string) => void lines.push(second ?? String(first))
  return { lines, info: line, warn: line, error: line }
}

// On vitest's fake clock: each test moves time itself.
describe('the cleanup of expired idempotency records', () => {
  const started: Array<IdempotencyCleanup> = []
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(async () => {
    await Promise.all(started.splice(0).map((c) => c.close()))
    vi.useRealTimers()
  })

  it('removes at start and then at every interval, logging what it removed', async () => {
    let calls = 0
    const logger = recordingLogger()
    started.push(
      startIdempotencyCleanup({ forgetExpired: () => TE.right(++calls === 1 ? 3 : 0), everyMs: 50, logger }),
    )
    await vi.advanceTimersByTimeAsync(10)
    expect(calls).toBe(1)
    expect(logger.lines).toEqual(['expired idempotency records removed'])
    await vi.advanceTimersByTimeAsync(100)
    expect(calls).toBe(3)
    expect(logger.lines).toHaveLength(1)
  })

  it('logs a failure, and tries again at the next turn', async () => {
    let calls = 0
    const logger = recordingLogger()
    started.push(
      startIdempotencyCleanup({
        forgetExpired: () => (++calls === 1 ? TE.left(storeUnavailable()) : TE.right(1)),
        everyMs: 30,
        logger,
      }),
    )
    await vi.advanceTimersByTimeAsync(35)
    expect(calls).toBe(2)
    expect(logger.lines[0]).toMatch(/not removed: the store is unavailable/)
    expect(logger.lines[1]).toBe('expired idempotency records removed')
  })

  it('survives a removal that throws', async () => {
    let calls = 0
    const logger = recordingLogger()
    const cleanup = startIdempotencyCleanup({
      forgetExpired: () => () =>
        ++calls === 1
          ? Promise.reject(new Error('bug'))
          : Promise.resolve({ _tag: 'Right', right: 0 } as const),
      everyMs: 3_600_000,
      logger,
    })
    started.push(cleanup)
    await cleanup.runNow()
    expect(calls).toBe(2)
    expect(logger.lines).toEqual(['expired idempotency records not removed'])
  })

  it('stops on close, after the removal under way has finished', async () => {
    let calls = 0
    let finished = false
    const cleanup = startIdempotencyCleanup({
      forgetExpired: () => async () => {
        calls++
        // 50 ms of the fake clock.
        await new Promise((resolve) => setTimeout(resolve, 50))
        finished = true
        return { _tag: 'Right', right: 0 } as const
      },
      everyMs: 20,
      logger: recordingLogger(),
    })
    const closed = cleanup.close()
    await vi.advanceTimersByTimeAsync(50)
    await closed
    expect(finished).toBe(true)
    const after = calls
    await vi.advanceTimersByTimeAsync(80)
    expect(calls).toBe(after)
  })
})
