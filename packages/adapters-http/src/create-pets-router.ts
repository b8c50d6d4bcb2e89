import Router from '@koa/router'
import type { Authenticator } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import { authenticateRequest } from './authenticate.js'
import { admitUrlLength } from './bound-url.js'
import { admitWithinRateLimit } from './limit-rate.js'
import type { RateLimiter } from './rate-limiter.js'
import { sendProblem } from './respond.js'
import { petRoutes } from './routes/pet-routes.js'
import { ROUTES } from './routes/route-table.js'
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

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * The pet operations as one Koa middleware, mounted under `prefix`. For every path under the
 * prefix it authenticates first, so a caller without a valid key learns nothing about routes,
 * then routes, answering 404 for an unknown path and 405 (with Allow) for a known path.
 */
export const createPetsRouter = (options: PetsRouterOptions): Middleware => {
  const prefix = (options.prefix ?? '/v1').replace(/\/+$/, '')
  const publicBaseUrl = options.publicBaseUrl.replace(/\/+$/, '')
  const { useCases, rateLimiter, bodyTimeoutMs } = options
  const handlers = petRoutes({
    useCases,
    publicBaseUrl,
    ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
  })
  const router = new Router({ prefix })
  // The route table is also what the OpenAPI document is built from. Routes are named by
  // operation id, which logs, metrics and the usage counts of API keys carry.
  for (const route of ROUTES)
    router[route.method](
      route.operationId,
      route.path.replace(/\{(\w+)\}/g, ':$1'),
      handlers[route.operationId],
    )
  const routes = router.routes()

  return async (ctx, next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next()
    const owner = await authenticateRequest(options.authenticator, ctx)
    if (E.isLeft(owner)) return sendProblem(ctx, owner.left)
    ctx.state.apiKey = owner.right
    // After authentication, before routing: a caller over its limit, or with an absurd URL, costs no more.
    if (rateLimiter !== undefined && !admitWithinRateLimit(rateLimiter, ctx, owner.right.keyId)) return
    if (!admitUrlLength(ctx)) return
    await routes(ctx as never, async () => {
      const allow = router
        .match(ctx.path, ctx.method)
        .path.flatMap((layer) => layer.methods)
        .filter((method, i, all) => all.indexOf(method) === i)
        .sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b))
      sendProblem(ctx, allow.length > 0 ? { _tag: 'MethodNotAllowed', allow } : { _tag: 'RouteNotFound' })
    })
  }
}
