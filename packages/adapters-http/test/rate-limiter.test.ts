import { describe, expect, it } from 'vitest'
import { createTokenBucketRateLimiter, rateLimitPolicyHeader } from '../src/index.js'

const aManualClock = () => {
  let ms = 1_000_000
  return { now: () => ms, advance: (by: number) => (ms += by) }
}

describe('createTokenBucketRateLimiter', () => {
  it('serves a burst at once, then refuses, saying in whole seconds when the next token comes', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 2, burst: 3, now: clock.now })
    expect([1, 2, 3].map(() => limiter.take('k'))).toEqual([
      { allowed: true, remaining: 2, resetSeconds: 1 },
      { allowed: true, remaining: 1, resetSeconds: 1 },
      { allowed: true, remaining: 0, resetSeconds: 1 },
    ])
    expect(limiter.take('k')).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 })
  })

  it('gives tokens back at the rate, never more than the burst', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 2, burst: 3, now: clock.now })
    for (let i = 0; i < 3; i++) limiter.take('k')
    clock.advance(499)
    expect(limiter.take('k').allowed).toBe(false)
    clock.advance(1)
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 0 })
    clock.advance(60_000)
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 2 })
  })

  it('rounds the wait up to whole seconds, and never says 0', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 0.25, burst: 1, now: clock.now })
    expect(limiter.take('k')).toEqual({ allowed: true, remaining: 0, resetSeconds: 4 })
    clock.advance(2_500)
    expect(limiter.take('k')).toEqual({ allowed: false, remaining: 0, resetSeconds: 2 })
    clock.advance(1_499)
    expect(limiter.take('k')).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 })
  })

  it('keeps a bucket per key', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 1, now: clock.now })
    expect(limiter.take('a').allowed).toBe(true)
    expect(limiter.take('a').allowed).toBe(false)
    expect(limiter.take('b').allowed).toBe(true)
  })

  it('forgets full buckets once it tracks many keys, which changes no decision', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 2, now: clock.now })
    for (let i = 0; i < 10_000; i++) limiter.take(`key ${i}`)
    limiter.take('busy')
    limiter.take('busy')
    clock.advance(1_000)
    limiter.take('new key')
    expect(limiter.take('busy')).toMatchObject({ allowed: true, remaining: 0 })
    expect(limiter.take('busy').allowed).toBe(false)
  })

  it.each([
    [0, 1],
    [-1, 1],
    [Number.NaN, 1],
    [1, 0],
    [1, 1.5],
  ])('refuses perSecond %s with burst %s', (perSecond, burst) => {
    expect(() => createTokenBucketRateLimiter({ perSecond, burst })).toThrow(RangeError)
  })

  it('looks at a few buckets for each new key, never at all of them: a sweep of 100,000 cost 10-60 ms', () => {
    // Counts the entries that the iterators of every Map yield while the limiter takes tokens.
    let looked = 0
    const prototype = Map.prototype as unknown as Record<
      PropertyKey,
      (...args: Array<unknown>) => Iterator<unknown>
    >
    const originals = (['entries', 'keys', 'values', Symbol.iterator] as const).map(
      (name) => [name, prototype[name]!] as const,
    )
    for (const [name, original] of originals)
      prototype[name] = function (this: Map<unknown, unknown>) {
        const iterator = original.call(this)
        return {
          next: () => {
            const step = iterator.next()
            if (step.done !== true) looked++
            return step
          },
          [Symbol.iterator]() {
            return this
          },
        } as Iterator<unknown>
      }
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 2, now: clock.now, maxKeys: 30_000 })
    let most = 0
    try {
      for (let i = 0; i < 100_000; i++) {
        // A bucket is full again 2,000 keys after its take: older ones to forget, newer ones to keep.
        if (i % 2 === 0) clock.advance(1)
        looked = 0
        limiter.take(`address ${i}`)
        most = Math.max(most, looked)
      }
    } finally {
      for (const [name, original] of originals) prototype[name] = original
    }
    expect(most).toBeLessThanOrEqual(4)
  })

  it('forgets full buckets as new keys come, and keeps those still spending', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 0.001, burst: 1, now: clock.now })
    // 10,000 keys whose only token is spent (1,000 s to refill), then 20,000 strangers with full buckets.
    for (let i = 0; i < 10_000; i++) limiter.take(`spent ${i}`)
    for (let i = 0; i < 20_000; i++) limiter.take(`stranger ${i}`)
    // Every spent one is still refused: none was forgotten, there being no maxKeys.
    let refused = 0
    for (let i = 0; i < 10_000; i++) if (!limiter.take(`spent ${i}`).allowed) refused++
    expect(refused).toBe(10_000)
  })

  it('takes back a token that was spent on what did not count, never above the burst', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 2, now: clock.now })
    limiter.take('a')
    limiter.take('a')
    expect(limiter.take('a').allowed).toBe(false)
    limiter.refund('a')
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 })
    for (let i = 0; i < 5; i++) limiter.refund('a')
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1 })
    // Nothing to give back to a key it never saw: nothing kept either.
    limiter.refund('b')
    expect(limiter.take('b')).toMatchObject({ allowed: true, remaining: 1 })
  })

  it('keeps at most maxKeys keys, dropping the oldest, for keys that strangers choose', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({ perSecond: 0.001, burst: 1, now: clock.now, maxKeys: 100 })
    // 10,000 addresses, each with an empty bucket that would take 1,000 s to refill.
    for (let i = 0; i < 10_000; i++) limiter.take(`address ${i}`)
    // The last ones are still limited; the first were forgotten (their buckets full again).
    expect(limiter.take('address 9999').allowed).toBe(false)
    expect(limiter.take('address 0').allowed).toBe(true)
    let kept = 0
    for (let i = 9_999; i >= 9_800; i--) if (!limiter.take(`address ${i}`).allowed) kept++
    expect(kept).toBeLessThanOrEqual(100)
    expect(kept).toBeGreaterThanOrEqual(80)
  })
})

describe('rateLimitPolicyHeader', () => {
  it.each([
    [{ perSecond: 5, burst: 10 }, '"default";q=10;w=2'],
    [{ perSecond: 100, burst: 100 }, '"default";q=100;w=1'],
    [{ perSecond: 100, burst: 1 }, '"default";q=1;w=1'],
    [{ perSecond: 3, burst: 10 }, '"default";q=10;w=4'],
    [{ perSecond: 0.5, burst: 1 }, '"default";q=1;w=2'],
  ])('writes %j as %s: the burst per the time to refill it', (policy, header) => {
    expect(rateLimitPolicyHeader(policy)).toBe(header)
  })
})
