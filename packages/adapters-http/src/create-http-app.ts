import Koa from 'koa'
import { createPetsRouter, type PetsRouterOptions } from './create-pets-router.js'
import { docsPage } from './docs-page.js'
import { silentLogger, type HttpLogger } from './logger.js'
import { observeRequests } from './observe-requests.js'
import { buildOpenApiDocument, type OpenApiServer } from './openapi/build-openapi-document.js'
import { openApiEndpoint } from './openapi-endpoint.js'
import { operationsEndpoints, type Operations } from './operations-endpoints.js'
import { requestId } from './request-id.js'
import { secureHeaders } from './secure-headers.js'
import { sendProblem } from './respond.js'

/** What createHttpApp needs: those of the pets router, and a logger (silent unless given). */
export type HttpAppOptions = PetsRouterOptions & {
  readonly logger?: HttpLogger
  /** Readiness, metrics and a request observer for `/readyz`, `/metrics` and the host's counters. */
  readonly operations?: Operations
  /** The `servers` of the OpenAPI document: the current environment's; `publicBaseUrl` unless given. */
  readonly servers?: ReadonlyArray<OpenApiServer>
}

/**
 * The whole HTTP API as a Koa app that does not listen: request id, logging and error mapping,
 * `GET /healthz`, `/readyz` and `/metrics`, the OpenAPI document at `/openapi.json` and its
 * rendering at `/docs`, the pet operations under `/v1`, and 404 for everything else.
 */
export const createHttpApp = (options: HttpAppOptions): Koa => {
  const app = new Koa()
  // Every error is answered by observeRequests; Koa's own handler would only print it again.
  app.silent = true
  app.use(secureHeaders())
  app.use(requestId())
  app.use(observeRequests(options.logger ?? silentLogger, options.operations?.observe))
  // The API first: the endpoints below serve paths outside its prefix, and each layer a request
  // passes through costs it a promise (bench/RESULTS.md).
  app.use(createPetsRouter(options))
  app.use(operationsEndpoints(options.operations))
  const servers = options.servers ?? [{ url: options.publicBaseUrl }]
  app.use(openApiEndpoint(buildOpenApiDocument({ servers })))
  app.use(docsPage(servers.map((server) => server.url)))
  app.use((ctx) => sendProblem(ctx, { _tag: 'RouteNotFound' }))
  return app
}
