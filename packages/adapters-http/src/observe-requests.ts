import type { Middleware } from 'koa'
import type { HttpLogger } from './logger.js'
import { sendProblem } from './respond.js'

/**
 * Logs one line per request and turns anything thrown below into `500 internal_error`, logged
 * once with the request id and answered without details. It never logs a header's value, so
 * neither API keys nor other credentials reach the log.
 */
export const observeRequests =
  (logger: HttpLogger): Middleware =>
  async (ctx, next) => {
    const started = process.hrtime.bigint()
    try {
      await next()
    } catch (error) {
      logger.error({ requestId: ctx.state.requestId, err: error }, 'request failed')
      // A defect may have set headers meant for a success; only X-Request-Id stays.
      for (const header of Object.keys(ctx.response.headers))
        if (header !== 'x-request-id') ctx.remove(header)
      sendProblem(ctx, { _tag: 'InternalError' })
    }
    logger.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route: ctx._matchedRoute ?? null,
        status: ctx.status,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        apiKeyId: ctx.state.apiKey?.keyId ?? null,
      },
      'request',
    )
  }
