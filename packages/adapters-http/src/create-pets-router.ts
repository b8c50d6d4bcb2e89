import type { Authenticator } from '@pets/domain'
import type { TrustedProxies } from './client-address.js'
import type { RateLimiter, TokenBucketRateLimiter } from './rate-limiter.js'
import { preparePetsApi } from './pets-api.js'
import type { HttpMiddleware } from './request-state.js'
import type { PetsUseCases } from './use-cases.js'

/** What createPetsRouter needs: the use cases, an authentication port of your choice, and where it is mounted. */
export type PetsRouterOptions = {
  readonly useCases: PetsUseCases
  readonly authenticator: Authenticator
  /** The absolute URL the API is reached at, ending in the version segment: used in Location and Link. */
  readonly publicBaseUrl: string
  /** Where the API is mounted in the Koa app: `/v1` unless the host mounts it elsewhere. */
  readonly prefix?: string
  /** Limits each API key's requests, right after authentication; no limit unless given. */
  readonly rateLimiter?: RateLimiter
  /** How long a request body may take to arrive; 10 s unless given. */
  readonly bodyTimeoutMs?: number
  /**
   * Limits the lookups of keys that are not valid, per client address (IPv6: per /64): while an
   * address has no token left, a key that only a lookup in the store can check gets `429
   * rate_limited` before it, so a stranger's guesses cost no query. A key the authenticator answers
   * from memory (`fromMemory`) is never limited. No limit unless given; bound its keys
   * (`maxKeys`), since strangers choose them.
   */
  readonly authFailureLimiter?: TokenBucketRateLimiter
  /**
   * The proxies in front of the service whose `X-Forwarded-For` is believed, by address or CIDR
   * (or, where no client can bypass them, by number): see `TrustedProxies`. None unless given:
   * the connection's peer, the header ignored.
   */
  readonly trustedProxies?: TrustedProxies
}

/**
 * The pet operations as one Koa middleware, mounted under `prefix`, for a host's own Koa app. For
 * every path under the prefix it authenticates first, so a caller without a valid key learns
 * nothing about routes, then routes, answering 404 for an unknown path and 405 (with Allow) for a
 * known path. Other paths go on to the host's next middleware.
 */
export const createPetsRouter = (options: PetsRouterOptions): HttpMiddleware => {
  const api = preparePetsApi(options)
  return (ctx, next) => (api.owns(ctx.path) ? api.serve(ctx) : next())
}
