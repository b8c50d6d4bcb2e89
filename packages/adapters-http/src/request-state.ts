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

// A path Koa's `ctx.path` and `ctx.querystring` read as node's url.parse would not: one that does not begin `//`.
const isPlainPath = (url: string): boolean => url.charCodeAt(0) === 0x2f && url.charCodeAt(1) !== 0x2f

/**
 * The path of a request's target: null for one without a path to route (a CONNECT's `host:443`); undefined
 * for a target that is no URL, such as `http://[%]/` or `http://a:b/`. A plain path as Koa reads it; any other
 * target as routedTarget reads it, never through node's url.parse (under Koa's), which printed a DEP0170
 * warning on standard error for `http://a:b/` and read its path as `/:b/`.
 */
export const pathOf = (ctx: HttpContext): string | null | undefined => {
  if (!isPlainPath(ctx.url)) return routedTarget(ctx.url)?.path
  try {
    return ctx.path as string | null
  } catch {
    return undefined
  }
}

/** The query of a request's target (what follows its `?`, without a fragment), read as pathOf reads its path. */
export const queryOf = (ctx: HttpContext): string =>
  isPlainPath(ctx.url) ? ctx.querystring : (routedTarget(ctx.url)?.query ?? '')
