import type { Tracer } from '@opentelemetry/api'
import type Koa from 'koa'
import type { PetsRouterOptions } from './create-pets-router.js'
import { logsCutsWith } from './cut-requests.js'
import { docsPageAt } from './docs-page.js'
import { LeanKoa } from './lean-koa.js'
import { silentLogger, type HttpLogger } from './logger.js'
import { buildOpenApiDocument, type OpenApiServer } from './openapi/build-openapi-document.js'
import { openApiEndpointAt } from './openapi-endpoint.js'
import { operationsEndpointsAt, type Operations } from './operations-endpoints.js'
import type { RequestState } from './request-state.js'
import { checkRouterOptions } from './router-options.js'
import { serveRequests } from './serve-requests.js'

/** What createHttpApp needs: those of the pets router, and a logger (silent unless given). */
export type HttpAppOptions = PetsRouterOptions & {
  readonly logger?: HttpLogger | undefined
  /** Readiness, metrics and a request observer for `/readyz`, `/metrics` and the host's counters. */
  readonly operations?: Operations | undefined
  /** The `servers` of the OpenAPI document: the current environment's; `publicBaseUrl` unless given. */
  readonly servers?: ReadonlyArray<OpenApiServer> | undefined
  /** Where the server span of each request goes; unset: the global tracer provider's (a no-op without an SDK). */
  readonly tracer?: Tracer | undefined
}

/**
 * The whole HTTP API as a Koa app that does not listen: operator endpoints, `/openapi.json`, `/docs` and
 * the pets under `/v1`, in one middleware with one dispatch on a LeanKoa (ARCHITECTURE.md, 'Made by
 * hand, on purpose', rows "dispatcher" and "lean-koa").
 */
export const createHttpApp = (options: HttpAppOptions): Koa<RequestState> => {
  checkRouterOptions(options)
  const app = new LeanKoa<RequestState>()
  // Every error is answered by serveRequests; Koa's own handler would only print it again.
  app.silent = true
  const servers = options.servers ?? [{ url: options.publicBaseUrl }]
  const { middleware, cutLine } = serveRequests({
    pets: options,
    logger: options.logger ?? silentLogger,
    ...(options.operations?.observe === undefined ? {} : { observe: options.operations.observe }),
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
    outside: [
      operationsEndpointsAt(options.operations),
      openApiEndpointAt(() => buildOpenApiDocument({ servers })),
      docsPageAt(servers.map((server) => server.url)),
    ],
  })
  app.use(middleware)
  // For a host that cuts its connections at shutdown (connectionCutter): the lines of the requests it cuts.
  logsCutsWith(app, cutLine)
  return app
}

/** What createOperationsApp needs: the operator's endpoints, and a logger (silent unless given). */
export type OperationsAppOptions = {
  readonly operations: Operations
  readonly logger?: HttpLogger | undefined
  /** As createHttpApp's. */
  readonly tracer?: Tracer | undefined
}

/**
 * The operator's endpoints alone (`/healthz`, `/readyz`, `/metrics`) as a Koa app that does not listen,
 * for a port only monitoring reaches; ids, headers and log lines as in createHttpApp.
 */
export const createOperationsApp = ({
  operations,
  logger,
  tracer,
}: OperationsAppOptions): Koa<RequestState> => {
  const app = new LeanKoa<RequestState>()
  app.silent = true
  const { middleware, cutLine } = serveRequests({
    logger: logger ?? silentLogger,
    ...(operations.observe === undefined ? {} : { observe: operations.observe }),
    ...(tracer === undefined ? {} : { tracer }),
    outside: [operationsEndpointsAt(operations)],
  })
  app.use(middleware)
  logsCutsWith(app, cutLine)
  return app
}
