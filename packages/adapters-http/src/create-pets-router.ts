import { trace } from '@opentelemetry/api'
import type { Authenticator } from '@pets/domain'
import type { TrustedProxies } from './client-address.js'
import type { RateLimiter, TokenBucketRateLimiter } from './rate-limiter.js'
import { preparePetsApi } from './pets-api.js'
import { pathOf, type HttpMiddleware } from './request-state.js'
import { checkRouterOptions } from './router-options.js'
import type { PetsUseCases } from './use-cases.js'

/** What createPetsRouter needs: the use cases, an authentication port, and where it is mounted. */
export type PetsRouterOptions = {
  readonly useCases: PetsUseCases
  readonly authenticator: Authenticator
  /** The absolute URL the API is reached at, ending in the version segment: used in Location and Link. */
  readonly publicBaseUrl: string
  /** Where the API is mounted in the Koa app: `/v1` unless the host mounts it elsewhere. */
  readonly prefix?: string | undefined
  /** Limits each API key's requests, right after authentication; no limit unless given. */
  readonly rateLimiter?: RateLimiter | undefined
  /** How long a request body may take to arrive; 10 s unless given. */
  readonly bodyTimeoutMs?: number | undefined
  /**
   * Limits lookups of invalid keys per client address (IPv6: per /64), so guesses cost no query; a key
   * answered from memory is never limited. Bound its `maxKeys`: strangers choose them.
   */
  readonly authFailureLimiter?: TokenBucketRateLimiter | undefined
  /** The proxies whose `X-Forwarded-For` is believed (see `TrustedProxies`); none unless given. */
  readonly trustedProxies?: TrustedProxies | undefined
}

/**
 * The pet operations as one Koa middleware under `prefix`, for a host's own Koa app. It authenticates
 * before routing, so a caller without a valid key learns nothing about routes; other paths go on. The
 * host's server span, if one records, gets the route: `http.route` and the name `{method} {route}`.
 */
export const createPetsRouter = (options: PetsRouterOptions): HttpMiddleware => {
  checkRouterOptions(options)
  const api = preparePetsApi(options)
  return async (ctx, next) => {
    // A target without a path, or not a URL: never ours (the host answers it).
    const path = pathOf(ctx)
    if (path === undefined || path === null || !api.owns(path)) return next()
    const span = trace.getActiveSpan()
    await api.serve(ctx)
    const route = ctx.state.route
    if (span?.isRecording() === true && route !== undefined) {
      span.setAttribute('http.route', route)
      span.updateName(`${ctx.method} ${route}`)
    }
  }
}
