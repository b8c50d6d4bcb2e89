import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { OPENAPI_PATH } from './openapi-endpoint.js'
import { endpointsAt, type PublicEndpoint, type PublicEndpoints } from './public-endpoints.js'

/** Where the page that renders the OpenAPI document for people is served, without a key. */
export const DOCS_PATH = '/docs'

// Swagger UI comes from the installed package, never from a CDN. It is found on the first request
// of the docs, so a process whose docs nobody reads never touches swagger-ui-dist.
const require = createRequire(import.meta.url)
const swaggerUi = () => {
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'))
  const { version } = require('swagger-ui-dist/package.json') as { version: string }
  // The version is in the path, so a browser may keep an asset for as long as it likes.
  return { dir, assetsPath: `${DOCS_PATH}/assets/${version}` }
}

const ASSET_TYPES: ReadonlyArray<readonly [string, string]> = [
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]

const page = (assetsPath: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Animal store API</title>
    <link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${assetsPath}/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${assetsPath}/swagger-ui-bundle.js"></script>
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

const origin = (url: string) => new URL(url).origin

const cached = (read: () => Promise<Buffer>): (() => Promise<Buffer>) => {
  let content: Promise<Buffer> | undefined
  return () => {
    if (content === undefined) {
      content = read()
      content.catch(() => (content = undefined))
    }
    return content
  }
}

/**
 * Serves `GET /docs`: Swagger UI from the installed swagger-ui-dist, rendering `/openapi.json`; its
 * Content-Security-Policy lets it call only `apiOrigins`, and a typed API key stays in memory.
 */
export const docsPageAt = (apiOrigins: ReadonlyArray<string>): PublicEndpoints => {
  const connect = ["'self'", ...new Set(apiOrigins.map(origin))].join(' ')
  const policy =
    `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; ` +
    `connect-src ${connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  let find: PublicEndpoints | undefined
  const prepare = (): PublicEndpoints => {
    const { dir, assetsPath } = swaggerUi()
    const text = page(assetsPath)
    const html: PublicEndpoint = {
      route: DOCS_PATH,
      serve: (ctx) => {
        ctx.set('Cache-Control', 'no-cache')
        ctx.set('Content-Security-Policy', policy)
        ctx.set('Referrer-Policy', 'no-referrer')
        ctx.type = 'text/html; charset=utf-8'
        ctx.body = text
      },
    }
    const script: PublicEndpoint = {
      route: `${DOCS_PATH}/init.js`,
      serve: (ctx) => {
        ctx.set('Cache-Control', 'no-cache')
        ctx.type = 'text/javascript; charset=utf-8'
        ctx.body = INIT
      },
    }
    const asset = ([file, type]: readonly [string, string]): readonly [string, PublicEndpoint] => {
      const read = cached(() => readFile(join(dir, file)))
      return [
        `${assetsPath}/${file}`,
        {
          // One template for every version of the assets: a label of a metric, chosen by us.
          route: `${DOCS_PATH}/assets/{version}/${file}`,
          serve: async (ctx) => {
            ctx.set('Cache-Control', 'public, max-age=31536000, immutable')
            ctx.type = type
            ctx.body = await read()
          },
        },
      ]
    }
    return endpointsAt([
      // `/docs` alone: `/docs/` is no path of the contract, so it is 404 as any other (paths are exact).
      [DOCS_PATH, html],
      [`${DOCS_PATH}/init.js`, script],
      ...ASSET_TYPES.map(asset),
    ])
  }
  return (path) =>
    path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`) ? (find ??= prepare())(path) : undefined
}
