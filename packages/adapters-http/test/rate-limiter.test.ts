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

  it('pays for its sweeps in bulk: a stranger with ever new addresses cannot make each one cost them all', () => {
    const clock = aManualClock()
    const limiter = createTokenBucketRateLimiter({
      perSecond: 0.001,
      burst: 1,
      now: clock.now,
      maxKeys: 20_000,
    })
    const started = performance.now()
    // Each key spends its only token: no bucket is ever full, so no sweep can drop it as such.
    for (let i = 0; i < 200_000; i++) limiter.take(`address ${i}`)
    // One sweep of 20,000 keys per new key would take minutes; in bulk it takes milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000)
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
