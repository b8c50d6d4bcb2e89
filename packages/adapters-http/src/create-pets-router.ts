import type { Authenticator } from '@pets/domain'
import type { RateLimiter } from './rate-limiter.js'
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
