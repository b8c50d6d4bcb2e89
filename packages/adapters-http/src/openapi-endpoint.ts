import { createHash } from 'node:crypto'
import type { OpenApiDocument } from './openapi/build-openapi-document.js'
import { endpointsAt, type PublicEndpoints } from './public-endpoints.js'

/** Where the OpenAPI document is served, outside the API's prefix and without a key. */
export const OPENAPI_PATH = '/openapi.json'

/**
 * Serves the OpenAPI document at `GET /openapi.json` with an ETag, to any site (it is public); built on
 * its first request, so a process never asked for it never builds it.
 */
export const openApiEndpointAt = (build: () => OpenApiDocument): PublicEndpoints => {
  let served: { readonly json: string; readonly etag: string } | undefined
  const document = () => {
    if (served !== undefined) return served
    const json = JSON.stringify(build())
    served = { json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` }
    return served
  }
  return endpointsAt([
    [
      OPENAPI_PATH,
      {
        route: OPENAPI_PATH,
        serve: (ctx) => {
          const { json, etag } = document()
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
        },
      },
    ],
  ])
}
