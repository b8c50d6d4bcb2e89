import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { watchDeadlines } from '../src/runner/query-deadlines.js'

describe('deadlines watched by one timer', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('expires a deadline once it has passed, within one period, and never one that was removed', async () => {
    const deadlines = watchDeadlines(50, () => Date.now())
    const expired: Array<string> = []
    const start = Date.now()
    deadlines.add({ at: start + 120, expire: () => expired.push('first') })
    const removed = { at: start + 120, expire: () => expired.push('removed') }
    deadlines.add(removed)
    deadlines.add({ at: start + 400, expire: () => expired.push('second') })
    deadlines.remove(removed)
    await vi.advanceTimersByTimeAsync(100)
    expect(expired).toEqual([])
    await vi.advanceTimersByTimeAsync(60)
    expect(expired).toEqual(['first'])
    await vi.advanceTimersByTimeAsync(300)
    expect(expired).toEqual(['first', 'second'])
  })

  it('runs its timer only while a deadline is watched', async () => {
    const deadlines = watchDeadlines(50, () => Date.now())
    expect(vi.getTimerCount()).toBe(0)
    const deadline = { at: Date.now() + 1000, expire: () => {} }
    deadlines.add(deadline)
    deadlines.add({ at: Date.now() + 2000, expire: () => {} })
    expect(vi.getTimerCount()).toBe(1)
    deadlines.remove(deadline)
    await vi.advanceTimersByTimeAsync(2100)
    expect(vi.getTimerCount()).toBe(0)
  })
})
