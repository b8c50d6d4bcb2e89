import type Router from '@koa/router'
import * as E from 'fp-ts/lib/Either.js'
import { authenticateKey, bearerKey, type LookupLimit } from './authenticate.js'
import { admitUrlLength } from './bound-url.js'
import { addressBucketOf, clientAddressFinder, type ClientAddressOf } from './client-address.js'
import type { PetsRouterOptions } from './create-pets-router.js'
import { admitWithinRateLimit } from './limit-rate.js'
import type { HttpContext, HttpMiddleware, RequestState } from './request-state.js'
import { sendProblem } from './respond.js'
import { buildPetsRouter } from './routes/build-pets-router.js'
import { petRoutes } from './routes/pet-routes.js'

/** The pet operations, prepared once: which paths are theirs, and how to serve one of them. */
export type PetsApi = {
  /** Whether a path lies under the API's prefix: every such path is the API's to answer. */
  readonly owns: (path: string) => boolean
  /** The operations as a @koa/router Router, each admitting its request first. */
  readonly router: Router<RequestState>
  /** Admits and answers a request under the prefix: an operation, or 404, or 405 with Allow. */
  readonly serve: HttpMiddleware
  /** Where a request came from, as `trustedProxies` says. */
  readonly clientAddressOf: ClientAddressOf
}

/**
 * Prepares the pet operations once: their handlers, their router, the problems they answer with.
 * Every request under the prefix is admitted before its operation, 404 or 405 is answered:
 * authentication, so that a caller without a valid key learns nothing about routes, then the rate
 * limit and the URL's length.
 */
export const preparePetsApi = (options: PetsRouterOptions): PetsApi => {
  // From the first slash of a run only: `/\/+$/` would scan the run again from each of its slashes.
  const prefix = (options.prefix ?? '/v1').replace(/(?<!\/)\/+$/, '')
  const publicBaseUrl = options.publicBaseUrl.replace(/(?<!\/)\/+$/, '')
  const { authenticator, rateLimiter, authFailureLimiter: failures, useCases, bodyTimeoutMs } = options
  const clientAddressOf = clientAddressFinder(options.trustedProxies)
  // The per-address limit guards lookups in the store only: keys answered from memory pass.
  const lookupLimit: LookupLimit<HttpContext> | undefined =
    failures === undefined
      ? undefined
      : { failures, addressOf: (ctx) => addressBucketOf(ctx.state.clientAddress ?? clientAddressOf(ctx.req)) }

  const admit: HttpMiddleware = async (ctx, next) => {
    const found = await authenticateKey(
      authenticator,
      bearerKey(ctx.get('Authorization') || undefined),
      lookupLimit,
      ctx,
    )
    if (E.isLeft(found)) return sendProblem(ctx, found.left)
    const owner = found.right
    ctx.state.apiKey = owner
    // After authentication, before the operation: a caller over its limit, or with an absurd URL, costs no more.
    if (rateLimiter !== undefined && !admitWithinRateLimit(rateLimiter, ctx, owner.keyId)) return
    if (!admitUrlLength(ctx)) return
    await next()
  }
  const { router, serve } = buildPetsRouter(
    prefix,
    admit,
    petRoutes({ useCases, publicBaseUrl, ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }) }),
  )
  const under = `${prefix}/`
  return { clientAddressOf, owns: (path) => path === prefix || path.startsWith(under), router, serve }
}
