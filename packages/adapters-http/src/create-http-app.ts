import Koa from 'koa'
import { createPetsRouter, type PetsRouterOptions } from './create-pets-router.js'
import { silentLogger, type HttpLogger } from './logger.js'
import { observeRequests } from './observe-requests.js'
import { requestId } from './request-id.js'
import { sendJson, sendProblem } from './respond.js'

export type HttpAppOptions = PetsRouterOptions & { readonly logger?: HttpLogger }

/**
 * The whole HTTP API as a Koa app that does not listen: request id, logging and error mapping,
 * `GET /healthz`, the pet operations under `/v1`, and 404 for everything else.
 */
export const createHttpApp = (options: HttpAppOptions): Koa => {
  const app = new Koa()
  // Every error is answered by observeRequests; Koa's own handler would only print it again.
  app.silent = true
  app.use(requestId())
  app.use(observeRequests(options.logger ?? silentLogger))
  app.use(async (ctx, next) => {
    if (ctx.path !== '/healthz') return next()
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      return sendProblem(ctx, { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] })
    sendJson(ctx, 200, '{"status":"ok"}')
  })
  app.use(createPetsRouter(options))
  app.use((ctx) => sendProblem(ctx, { _tag: 'RouteNotFound' }))
  return app
}
