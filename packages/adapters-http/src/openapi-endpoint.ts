import { createHash } from 'node:crypto'
import type { Middleware } from 'koa'
import type { OpenApiDocument } from './openapi/build-openapi-document.js'
import { sendProblem } from './respond.js'

/** Where the OpenAPI document is served, outside the API's prefix and without a key. */
export const OPENAPI_PATH = '/openapi.json'

/**
 * Serves the OpenAPI document at `GET /openapi.json` (and HEAD), with an ETag so a client can
 * revalidate cheaply. Any site may read it: it is the public description of the interface.
 */
export const openApiEndpoint = (document: OpenApiDocument): Middleware => {
  const json = JSON.stringify(document)
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`
  return async (ctx, next) => {
    if (ctx.path !== OPENAPI_PATH) return next()
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      return sendProblem(ctx, { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] })
    ctx.set('Cache-Control', 'no-cache')
    ctx.set('Access-Control-Allow-Origin', '*')
    ctx.etag = etag
    ctx.status = 200
    if (ctx.fresh) {
      ctx.status = 304
      return
    }
    ctx.type = 'application/json'
    ctx.body = json
  }
}
