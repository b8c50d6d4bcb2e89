import type { StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import type { ShuttingDown } from './problems.js'
import { endpointsAt, type PublicEndpoint, type PublicEndpoints } from './public-endpoints.js'
import { sendErrorBody, sendJson } from './respond.js'

/** What one answered request was, as logs and metrics see it: never a header's value. */
export type ObservedRequest = {
  readonly requestId: string
  /** The trace and span ids of the request's server span, when it is sampled: the log line finds its trace. */
  readonly traceId?: string | undefined
  readonly spanId?: string | undefined
  readonly method: string
  /** The route template, such as `/v1/pets/{petId}`; null when no route matched. */
  readonly route: string | null
  /** The operation id, such as `getPet`; null outside the operations of the interface. */
  readonly operation: string | null
  /** The status answered; 499 (nginx's "client closed request") when `aborted`. */
  readonly status: number
  readonly durationMs: number
  /** The id of the API key that authenticated the request; null when none did. */
  readonly apiKeyId: string | null
  /** Where the request came from: the connection's peer, or what trusted proxies forwarded. */
  readonly clientAddress: string
  /** The path (no query, ≤ 256 characters) if no route matched; never a metric label: strangers pick it. */
  readonly path: string | null
  /** The client left before its answer: no fault of the service, whatever its handler did meanwhile. */
  readonly aborted: boolean
  /**
   * `cut`: no answer because the host's shutdown ran out of grace and closed the connection (then `aborted`
   * and 499 too); undefined for every other request.
   */
  readonly outcome?: 'cut' | undefined
  /**
   * For a request its store could not serve (answered 503, or its client left first): what the store said of
   * the call (the StoreUnavailable's `details`, such as `operation` and `sqlstate`) and its `cause`, the error's
   * message (never its stack); undefined for every other request.
   */
  readonly store?: StoreFailure | undefined
}

/** What a request's line says of the store's failure to serve it. */
export type StoreFailure = Readonly<Record<string, unknown>> & { readonly cause: string | null }

/** A Prometheus exposition: the text and the media type it is written in. */
export type MetricsPage = { readonly contentType: string; readonly body: string }

/** What the operator's endpoints outside /v1 need from the host; each part may be left out. */
export type Operations = {
  /** Whether this instance should get traffic; `GET /readyz` answers 200 only when it is right. */
  readonly ready?: (() => TaskEither<StoreUnavailable | ShuttingDown, void>) | undefined
  /** The body of `GET /metrics`; without it, /metrics is 404. */
  readonly metrics?: (() => Promise<MetricsPage>) | undefined
  /** Told about every request once it is answered, after its log line; it must not throw. */
  readonly observe?: ((request: ObservedRequest) => void) | undefined
}

const HEALTHY = '{"status":"ok"}'
const READY = '{"status":"ready"}'

/**
 * `GET /healthz`, `GET /readyz` and, when the host has metrics, `GET /metrics`: for load balancers and
 * monitoring, so no API key, and never cached (`Cache-Control: no-store`, as every answer).
 */
export const operationsEndpointsAt = (operations: Operations = {}): PublicEndpoints => {
  const { ready, metrics } = operations
  const endpoints: Array<readonly [string, PublicEndpoint['serve']]> = [
    ['/healthz', (ctx) => sendJson(ctx, 200, HEALTHY)],
    [
      '/readyz',
      async (ctx) => {
        const answer = ready === undefined ? E.right(undefined) : await ready()()
        // A probe's 503 is what it asked: its request line says so, without the store's failure on it (the
        // store's own lines tell of an outage).
        if (E.isLeft(answer)) sendErrorBody(ctx, answer.left)
        else sendJson(ctx, 200, READY)
      },
    ],
  ]
  if (metrics !== undefined)
    endpoints.push([
      '/metrics',
      async (ctx) => {
        const page = await metrics()
        // Exactly the exposition's media type: ctx.type would add a charset to it.
        ctx.set('Content-Type', page.contentType)
        ctx.status = 200
        ctx.body = page.body
      },
    ])
  // Logs and metrics name these endpoints by their path.
  return endpointsAt(endpoints.map(([path, serve]) => [path, { route: path, serve }] as const))
}
