import type { Context } from 'koa'
import type { RateLimiter } from './rate-limiter.js'
import { sendProblem } from './respond.js'

// draft-ietf-httpapi-ratelimit-headers-11: a policy gives q (quota) and w (window, whole seconds); the
// limit gives r (remaining) and t (seconds within which the client can use no more than r).
const POLICY = 'default'

/** A bucket as the draft's one quota: `burst` per fill time, rounded up so the rate is never overstated. */
export const rateLimitPolicyHeader = ({ perSecond, burst }: RateLimiter['policy']): string =>
  `"${POLICY}";q=${burst};w=${Math.max(1, Math.ceil(burst / perSecond))}`

/** Spends a token of the key's bucket and sets the RateLimit headers; over the limit, answers 429, false. */
export const admitWithinRateLimit = (limiter: RateLimiter, ctx: Context, keyId: string): boolean => {
  const { allowed, remaining, resetSeconds } = limiter.take(keyId)
  ctx.set('RateLimit-Policy', rateLimitPolicyHeader(limiter.policy))
  ctx.set('RateLimit', `"${POLICY}";r=${remaining};t=${resetSeconds}`)
  if (!allowed) sendProblem(ctx, { _tag: 'RateLimited', retryAfterSeconds: resetSeconds })
  return allowed
}
