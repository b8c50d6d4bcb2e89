import type { Context } from '@opentelemetry/api'
import type { ApiKeyOwner, StoreUnavailable } from '@pets/domain'
import type { Middleware, ParameterizedContext } from 'koa'
import { routedTarget } from './request-target.js'

/** What the HTTP adapter records about a request in Koa's `ctx.state`, as it goes. */
export type RequestState = {
  /** When serveRequests took the request (performance.now()): a request cut at shutdown is logged from here. */
  startedMs?: number
  /** The caller's X-Request-Id, if acceptable, or a new one: on the answer and in its log line. */
  requestId?: string
  /** Where the request came from (clientAddressOf), read as it arrived. */
  clientAddress?: string
  /** Who sent the request, once authenticated. */
  apiKey?: ApiKeyOwner
  /** The route template that served it, such as `/v1/pets/{petId}`; unset when none did. */
  route?: string
  /** The operation id that served it, such as `getPet`; unset outside the interface's operations. */
  operation?: string
  /** The context the request's calls into the domain run in, its server span active; only while it records. */
  traceContext?: Context
  /** The store's failure the request was answered 503 for (sendProblem): its request line says what it was. */
  unavailable?: StoreUnavailable
}

export type HttpContext = ParameterizedContext<RequestState>

export type HttpMiddleware = Middleware<RequestState>

/**
 * The path of a request's target: null for one without a path to route (a CONNECT's `host:443`); undefined
 * for a target that is no URL, such as `http://[%]/` or `http://a:b/`. Read by routedTarget, never by Koa's
 * `ctx.path` (parseurl): for a path with a `#` (or a character url.parse trims) parseurl calls node's url.parse,
 * which prints a DEP0169 warning on standard error on Node 24, and for `http://a:b/` a DEP0170 one, reading its
 * path as `/:b/`.
 */
export const pathOf = (ctx: HttpContext): string | null | undefined => routedTarget(ctx.url)?.path

/** The query of a request's target (what follows its `?`, without a fragment), read as pathOf reads its path. */
export const queryOf = (ctx: HttpContext): string => routedTarget(ctx.url)?.query ?? ''
