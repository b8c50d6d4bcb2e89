import type { Context } from '@opentelemetry/api'
import type { ApiKeyOwner, StoreUnavailable } from '@pets/domain'
import type { Middleware, ParameterizedContext } from 'koa'

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
 * The path of a request's target: null for a CONNECT's authority form (`host:port`), which has none;
 * undefined for a target that node's url.parse (under Koa's `ctx.path`) refuses, such as `http://[%]/`.
 */
export const pathOf = (ctx: HttpContext): string | null | undefined => {
  try {
    return ctx.path as string | null
  } catch {
    return undefined
  }
}
