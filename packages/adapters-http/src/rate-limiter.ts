import { performance } from 'node:perf_hooks'

/** A token bucket: `burst` requests at once, refilled at `perSecond` requests a second. */
export type RateLimitPolicy = { readonly perSecond: number; readonly burst: number }

/** One request's verdict: served or not, whole requests left, and whole seconds (≥ 1) until one more. */
export type RateDecision = {
  readonly allowed: boolean
  readonly remaining: number
  readonly resetSeconds: number
}

/** Decides, per key, whether a request is within the rate limit, and spends a token if it is. */
export interface RateLimiter {
  readonly policy: RateLimitPolicy
  readonly take: (key: string) => RateDecision
}

/** The options of createTokenBucketRateLimiter: its policy, and its clock and bound on keys. */
export type TokenBucketOptions = RateLimitPolicy & {
  /** Milliseconds on a clock that never goes back; performance.now unless given. */
  readonly now?: (() => number) | undefined
  /** The most keys kept, for keys strangers choose (addresses): past it the oldest goes (full ones go sooner). */
  readonly maxKeys?: number | undefined
}

/** A token-bucket limiter that can also give a token back. */
export type TokenBucketRateLimiter = RateLimiter & {
  /** Gives back a token that `take` spent on what turned out not to count, up to the burst. */
  readonly refund: (key: string) => void
}

type Bucket = { tokens: number; at: number }

// A full bucket is the same as none: past this many keys, each new key moves a sweep on by SWEEP_STEP buckets.
const SWEEP_ABOVE = 10_000
const SWEEP_STEP = 2

/** A token-bucket rate limiter in this process's memory: `burst` tokens per key, refilled at `perSecond`. */
export const createTokenBucketRateLimiter = ({
  perSecond,
  burst,
  now = () => performance.now(),
  maxKeys = Number.POSITIVE_INFINITY,
}: TokenBucketOptions): TokenBucketRateLimiter => {
  if (!(perSecond > 0) || !Number.isSafeInteger(burst) || burst < 1)
    throw new RangeError('a rate limit needs perSecond > 0 and an integer burst >= 1')
  if (!(maxKeys >= 1)) throw new RangeError('a rate limit needs maxKeys >= 1')
  const buckets = new Map<string, Bucket>()
  const refill = (bucket: Bucket, at: number) => {
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * perSecond)
    bucket.at = at
  }
  const sweepAbove = Math.min(SWEEP_ABOVE, maxKeys)
  // Where the sweep and the eviction are, in the Map's order (a key's first take): iterators kept from one key
  // to the next, since a new one walks again over every entry deleted before it (each new key made one, and
  // sweeping the whole Map at once, as it did, stalled the event loop 10-60 ms at 100,000 keys).
  let sweeping: Iterator<[string, Bucket]> | undefined
  let evicting: Iterator<string> | undefined
  const sweepOn = (at: number) => {
    for (let step = 0; step < SWEEP_STEP; step++) {
      sweeping ??= buckets.entries()
      const next = sweeping.next()
      if (next.done === true) return void (sweeping = undefined)
      const [key, bucket] = next.value
      refill(bucket, at)
      if (bucket.tokens >= burst) buckets.delete(key)
    }
  }
  // Past maxKeys, the oldest key goes, whatever its bucket holds.
  const evictOldest = () => {
    evicting ??= buckets.keys()
    let next = evicting.next()
    if (next.done === true) next = (evicting = buckets.keys()).next()
    if (next.done !== true) buckets.delete(next.value)
  }
  return {
    policy: { perSecond, burst },
    take: (key) => {
      const at = now()
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        if (buckets.size >= sweepAbove) sweepOn(at)
        if (buckets.size >= maxKeys) evictOldest()
        bucket = { tokens: burst, at }
        buckets.set(key, bucket)
      } else refill(bucket, at)
      const allowed = bucket.tokens >= 1
      if (allowed) bucket.tokens -= 1
      const remaining = Math.floor(bucket.tokens)
      // Until the next whole token: as long as the client can do with `remaining`.
      const resetSeconds = Math.max(1, Math.ceil((remaining + 1 - bucket.tokens) / perSecond))
      return { allowed, remaining, resetSeconds }
    },
    refund: (key) => {
      const bucket = buckets.get(key)
      if (bucket !== undefined) bucket.tokens = Math.min(burst, bucket.tokens + 1)
    },
  }
}
