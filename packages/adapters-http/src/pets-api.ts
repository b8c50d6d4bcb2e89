import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { IncomingMessage } from 'node:http'
import type { ApiKeyOwner } from '@pets/domain'
import { authenticateKey, bearerKey, tabAfterBearer, type LookupLimit } from './authenticate.js'
import { addressBucketOf, clientAddressFinder, type ClientAddressOf } from './client-address.js'
import { sentMoreThanOnce } from './header-lines.js'
import type { PetsRouterOptions } from './create-pets-router.js'
import { admitWithinRateLimit } from './limit-rate.js'
import type { Problem } from './problems.js'
import { withRequestSpan, type FollowsTraceOf } from './request-span.js'
import { pathOf, type HttpContext } from './request-state.js'
import { sendProblem } from './respond.js'
import { compileRoutes } from './routes/dispatch.js'
import { headersOfEveryAnswer, petRoutes, type RouteHandler } from './routes/pet-routes.js'
import { ROUTES } from './routes/route-table.js'
import { withoutTrailingSlashes } from '@pets/wire'

// The memory's answer for a request's key, when knownCaller asked it before the request was served.
const MEMORY_ANSWER = Symbol('the memory answer for the request key')
type Asked = IncomingMessage & { [MEMORY_ANSWER]?: O.Option<ApiKeyOwner> }

/** The pet operations, prepared once: which paths are theirs, and how to serve one of them. */
export type PetsApi = {
  /** Whether a path lies under the API's prefix: every such path is the API's to answer. */
  readonly owns: (path: string) => boolean
  readonly serve: (ctx: HttpContext) => Promise<void>
  readonly clientAddressOf: ClientAddressOf
  /**
   * Whether a request's trace context may be followed: it carries one Authorization line whose key is known in
   * memory. A stranger's traceparent would choose the trace of its span and the traceId of its log line, and
   * have it sampled whatever the sampler's ratio (W3C Trace Context, 9.2: denial of service).
   */
  readonly knownCaller: FollowsTraceOf
  /** The headers every answer of an operation carries once authenticated (a deprecated one's), a 500's too. */
  readonly headersOf: (operationId: string | undefined) => Readonly<Record<string, string>> | undefined
}

const NOT_FOUND: Problem = { _tag: 'RouteNotFound' }
const SEVERAL_AUTHORIZATIONS: Problem = { _tag: 'Unauthorized', keySent: true, malformed: 'twice' }
const TAB_AFTER_BEARER: Problem = { _tag: 'Unauthorized', keySent: true, malformed: 'tab' }

/**
 * Prepares the pet operations once, so a request costs one dispatch: authentication first (a caller
 * without a valid key learns nothing about routes), rate limit, route, handler (which checks the URL's length
 * where CONTRACT's order puts a 400). Its caller has checked the options (checkRouterOptions).
 */
export const preparePetsApi = (options: PetsRouterOptions): PetsApi => {
  const prefix = withoutTrailingSlashes(options.prefix ?? '/v1')
  const publicBaseUrl = withoutTrailingSlashes(options.publicBaseUrl)
  const { authenticator, rateLimiter, authFailureLimiter: failures, useCases, bodyTimeoutMs } = options
  const clientAddressOf = clientAddressFinder(options.trustedProxies)
  const handlers = petRoutes({
    useCases,
    publicBaseUrl,
    ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
  })
  const match = compileRoutes<RouteHandler>(
    prefix,
    ROUTES,
    (operationId) => handlers[operationId as keyof typeof handlers],
  )
  const alwaysSent = headersOfEveryAnswer(publicBaseUrl)
  const under = `${prefix}/`
  // The per-address limit guards lookups in the store only: keys answered from memory pass.
  const lookupLimit: LookupLimit<HttpContext> | undefined =
    failures === undefined
      ? undefined
      : { failures, addressOf: (ctx) => addressBucketOf(ctx.state.clientAddress ?? clientAddressOf(ctx.req)) }

  return {
    clientAddressOf,
    headersOf: (operationId) => (operationId === undefined ? undefined : alwaysSent.get(operationId)),
    owns: (path) => path === prefix || path.startsWith(under),
    knownCaller: (req: Asked) => {
      const authorization = req.headers.authorization
      const key = authorization === undefined ? undefined : bearerKey(authorization)
      if (key === undefined || sentMoreThanOnce(req, 'authorization')) return false
      const found = authenticator.fromMemory?.(key)
      if (found === undefined) return false
      // Kept for the authentication below: one digest of the key a request.
      req[MEMORY_ANSWER] = found
      return O.isSome(found)
    },
    serve: async (ctx) => {
      const authorization = ctx.get('Authorization') || undefined
      // Which of several lines holds the key? None: node kept the first, a proxy may read the last.
      if (authorization !== undefined && sentMoreThanOnce(ctx.req, 'authorization'))
        return sendProblem(ctx, SEVERAL_AUTHORIZATIONS)
      const key = bearerKey(authorization)
      // A key there is, but none that its scheme's grammar lets through: say so, not that none came (asked
      // only of a header whose key is missing or begins with a tab, so a well-formed one pays nothing).
      if (
        authorization !== undefined &&
        (key === undefined || key.charCodeAt(0) === 9) &&
        tabAfterBearer(authorization)
      )
        return sendProblem(ctx, TAB_AFTER_BEARER)
      // In the request's span: a stored key's lookup is its child.
      const found = await withRequestSpan(
        ctx,
        authenticateKey<HttpContext>,
        authenticator,
        key,
        lookupLimit,
        ctx,
        (ctx.req as Asked)[MEMORY_ANSWER],
      )
      if (E.isLeft(found)) return sendProblem(ctx, found.left)
      const owner = found.right
      ctx.state.apiKey = owner
      const matched = match(pathOf(ctx) ?? '')
      const endpoint = matched?.route.methods.get(ctx.method)
      // Once authenticated, every answer of a deprecated operation says so, its 429 and 400s included.
      const headers = endpoint === undefined ? undefined : alwaysSent.get(endpoint.operationId)
      if (headers !== undefined) ctx.set(headers)
      // Before the answer of the route: a caller over its limit costs no more.
      if (rateLimiter !== undefined && !admitWithinRateLimit(rateLimiter, ctx, owner.keyId)) return
      if (matched === undefined) return sendProblem(ctx, NOT_FOUND)
      if (endpoint === undefined) return sendProblem(ctx, matched.route.notAllowed)
      ctx.state.route = matched.route.template
      ctx.state.operation = endpoint.operationId
      // After the await of authentication: the request's span is entered again for the handler.
      await withRequestSpan(ctx, endpoint.handle, ctx, matched.params)
    },
  }
}
