import type { Context, Middleware } from 'koa'
import type { HttpLogger } from './logger.js'
import type { ObservedRequest } from './operations-endpoints.js'
import { sendProblem } from './respond.js'

// Headers that a defect's 500 keeps: the request id, and how the connection ends (the host may
// have asked for it to close, while shutting down).
const KEPT_ON_ERROR = new Set(['x-request-id', 'connection'])

// @koa/router gives `/v1/pets/:petId`; logs and metrics use the template of the interface.
const routeOf = (ctx: Context): string | null => {
  const route = (ctx.state.route as string | undefined) ?? ctx._matchedRoute
  return typeof route === 'string' ? route.replace(/:(\w+)/g, '{$1}') : null
}

/**
 * Logs one line per request and turns anything thrown below into `500 internal_error`, logged
 * once with the request id and answered without details. It never logs a header's value, so
 * neither API keys nor other credentials reach the log. `observe` hears of every request too.
 */
export const observeRequests =
  (logger: HttpLogger, observe?: (request: ObservedRequest) => void): Middleware =>
  async (ctx, next) => {
    const started = process.hrtime.bigint()
    try {
      await next()
    } catch (error) {
      logger.error({ requestId: ctx.state.requestId, err: error }, 'request failed')
      // A defect may have set headers meant for a success.
      for (const header of Object.keys(ctx.response.headers))
        if (!KEPT_ON_ERROR.has(header)) ctx.remove(header)
      sendProblem(ctx, { _tag: 'InternalError' })
    }
    const logged = logger.isLevelEnabled?.('info') ?? true
    if (!logged && observe === undefined) return
    const request: ObservedRequest = {
      requestId: ctx.state.requestId as string,
      method: ctx.method,
      route: routeOf(ctx),
      operation: ctx._matchedRouteName ?? null,
      status: ctx.status,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      apiKeyId: (ctx.state.apiKey as { keyId?: string } | undefined)?.keyId ?? null,
    }
    if (logged) logger.info(request, 'request')
    if (observe === undefined) return
    try {
      observe(request)
    } catch (error) {
      // Counting a request must never cost its answer.
      logger.error({ requestId: request.requestId, err: error }, 'observing a request failed')
    }
  }
