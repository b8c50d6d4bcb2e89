import type { Context } from 'koa'
import type { RateLimiter } from './rate-limiter.js'
import { sendProblem } from './respond.js'

// The fields of the IETF httpapi draft "RateLimit header fields for HTTP",
// draft-ietf-httpapi-ratelimit-headers-11 (May 2026): a quota policy is a Structured Field String
// with q (quota) and w (window, whole seconds); the service limit gives r (remaining) and t
// (seconds within which the client can use no more than r).
const POLICY = 'default'

/**
 * The policy of a token bucket as the draft's one quota: `burst` requests per the time the bucket
 * takes to fill (rounded up, so the advertised rate is never above the real one).
 */
export const rateLimitPolicyHeader = ({ perSecond, burst }: RateLimiter['policy']): string =>
  `"${POLICY}";q=${burst};w=${Math.max(1, Math.ceil(burst / perSecond))}`

/**
 * Spends one token of the API key's bucket and adds the RateLimit-Policy and RateLimit headers.
 * Over the limit it answers `429 rate_limited` with Retry-After and returns false; the request
 * must then go no further.
 */
export const admitWithinRateLimit = (limiter: RateLimiter, ctx: Context, keyId: string): boolean => {
  const { allowed, remaining, resetSeconds } = limiter.take(keyId)
  ctx.set('RateLimit-Policy', rateLimitPolicyHeader(limiter.policy))
  ctx.set('RateLimit', `"${POLICY}";r=${remaining};t=${resetSeconds}`)
  if (!allowed) sendProblem(ctx, { _tag: 'RateLimited', retryAfterSeconds: resetSeconds })
  return allowed
}
