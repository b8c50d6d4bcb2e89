export { answerClientError } from './connection/answer-client-error.js'
export {
  answerEveryRequest,
  APP_ANSWERS_EVERY_REQUEST,
  CONNECT_ANSWER_MS,
  type RequestHandler,
} from './connection/node-server-edges.js'
export {
  inOrder,
  MAX_PIPELINED,
  MAX_PIPELINED_BYTES,
  type InOrderOptions,
} from './connection/pipelined-in-order.js'
export { bearerKey } from './authenticate.js'
export { MAX_URL_BYTES } from './bound-url.js'
export { decodeListPetsQuery, decodePetId, ListPetsQuery, PetIdParam } from './codecs.js'
export {
  addressBucketOf,
  clientAddressFinder,
  type ClientAddressOf,
  type TrustedProxies,
} from './client-address.js'
export {
  createHttpApp,
  createOperationsApp,
  type HttpAppOptions,
  type OperationsAppOptions,
} from './create-http-app.js'
export { createPetsRouter, type PetsRouterOptions } from './create-pets-router.js'
export type { RequestState } from './request-state.js'
export { connectionCutter } from './cut-requests.js'
export { DOCS_PATH } from './docs-page.js'
export {
  API_VERSION,
  buildOpenApiDocument,
  type OpenApiDocument,
  type OpenApiServer,
} from './openapi/build-openapi-document.js'
export { IDEMPOTENCY_KEY_HEADER } from './idempotency-key-header.js'
export { knownMethodOf } from './known-methods.js'
export { rateLimitPolicyHeader } from './limit-rate.js'
export { OPENAPI_PATH } from './openapi-endpoint.js'
export { silentLogger, type HttpLogger } from './logger.js'
export {
  type MetricsPage,
  type ObservedRequest,
  type Operations,
  type StoreFailure,
} from './operations-endpoints.js'
export {
  toErrorResponse,
  type ErrorResponse,
  type Problem,
  type RateLimited,
  type ShuttingDown,
} from './problems.js'
export {
  createTokenBucketRateLimiter,
  type RateDecision,
  type RateLimiter,
  type RateLimitPolicy,
  type TokenBucketOptions,
  type TokenBucketRateLimiter,
} from './rate-limiter.js'
export { BODY_TIMEOUT_MS, MAX_BODY_BYTES } from './body/read-json-body.js'
export { MAX_JSON_DEPTH } from './body/json-depth.js'
export { canonicalJson, requestFingerprint } from './request-fingerprint.js'
export { requestIdOf } from './request-id.js'
export {
  defaultTracer,
  endRequestSpan,
  startRequestSpan,
  traceIdsOf,
  withRequestSpan,
  type FollowsTraceOf,
  type RequestSpan,
  type TraceIds,
} from './request-span.js'
export { DEPRECATED_OPERATIONS, ROUTES, type OperationId, type RouteSpec } from './routes/route-table.js'
export type { PetsUseCases } from './use-cases.js'
