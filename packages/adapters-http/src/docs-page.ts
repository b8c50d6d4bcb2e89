import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Middleware } from 'koa'
import { OPENAPI_PATH } from './openapi-endpoint.js'
import { sendProblem } from './respond.js'

/** Where the page that renders the OpenAPI document for people is served, without a key. */
export const DOCS_PATH = '/docs'

// Swagger UI comes from the installed package, never from a CDN.
const require = createRequire(import.meta.url)
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'))
const SWAGGER_UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version
// The version is in the path, so a browser may keep an asset for as long as it likes.
const ASSETS_PATH = `${DOCS_PATH}/assets/${SWAGGER_UI_VERSION}`

const ASSET_TYPES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Animal store API</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`

// A script of its own, not inline, so the page's Content-Security-Policy can refuse inline scripts.
// persistAuthorization false: the key the reader types stays in this tab's memory, never in storage.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  persistAuthorization: false,
  validatorUrl: null,
})
`

const assets = new Map<string, Promise<Buffer>>()
const readAsset = (file: string): Promise<Buffer> => {
  let content = assets.get(file)
  if (content === undefined) {
    content = readFile(join(SWAGGER_UI_DIR, file))
    content.catch(() => assets.delete(file))
    assets.set(file, content)
  }
  return content
}

const origin = (url: string) => new URL(url).origin

/**
 * Serves `GET /docs`: Swagger UI, from the installed swagger-ui-dist, rendering `/openapi.json`.
 * The reader types an API key into the page to try an operation; the page keeps it in memory
 * only. `apiOrigins` are where the operations are (the document's servers), which the page's
 * Content-Security-Policy lets it call.
 */
export const docsPage = (apiOrigins: ReadonlyArray<string>): Middleware => {
  const connect = ["'self'", ...new Set(apiOrigins.map(origin))].join(' ')
  const policy =
    `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; ` +
    `connect-src ${connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  return async (ctx, next) => {
    if (ctx.path !== DOCS_PATH && !ctx.path.startsWith(`${DOCS_PATH}/`)) return next()
    const file = ctx.path.startsWith(`${ASSETS_PATH}/`) ? ctx.path.slice(ASSETS_PATH.length + 1) : undefined
    const type = file === undefined ? undefined : ASSET_TYPES[file]
    const page = ctx.path === DOCS_PATH || ctx.path === `${DOCS_PATH}/`
    const known = page || ctx.path === `${DOCS_PATH}/init.js` || type !== undefined
    if (!known) return next()
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      return sendProblem(ctx, { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] })
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.status = 200
    if (file !== undefined && type !== undefined) {
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable')
      ctx.type = type
      ctx.body = await readAsset(file)
    } else if (page) {
      ctx.set('Cache-Control', 'no-cache')
      ctx.set('Content-Security-Policy', policy)
      ctx.set('Referrer-Policy', 'no-referrer')
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = PAGE
    } else {
      ctx.set('Cache-Control', 'no-cache')
      ctx.type = 'text/javascript; charset=utf-8'
      ctx.body = INIT
    }
  }
}
