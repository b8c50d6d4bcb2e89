import type { StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import type { Middleware } from 'koa'
import type { ShuttingDown } from './problems.js'
import { sendJson, sendProblem } from './respond.js'

/** What one answered request was, as logs and metrics see it: never a header's value. */
export type ObservedRequest = {
  readonly requestId: string
  readonly method: string
  /** The route template, such as `/v1/pets/{petId}`; null when no route matched. */
  readonly route: string | null
  /** The operation id, such as `getPet`; null outside the operations of the interface. */
  readonly operation: string | null
  readonly status: number
  readonly durationMs: number
  /** The id of the API key that authenticated the request; null when none did. */
  readonly apiKeyId: string | null
}

/** A Prometheus exposition: the text and the media type it is written in. */
export type MetricsPage = { readonly contentType: string; readonly body: string }

/** What the operator's endpoints outside /v1 need from the host; each part may be left out. */
export type Operations = {
  /** Whether this instance should get traffic; `GET /readyz` answers 200 only when it is right. */
  readonly ready?: () => TaskEither<StoreUnavailable | ShuttingDown, void>
  /** The body of `GET /metrics`; without it, /metrics is 404. */
  readonly metrics?: () => Promise<MetricsPage>
  /** Told about every request once it is answered, after its log line; it must not throw. */
  readonly observe?: (request: ObservedRequest) => void
}

const READ_ONLY = ['GET', 'HEAD']

/**
 * `GET /healthz` (200 while the process runs), `GET /readyz` and, when the host has metrics,
 * `GET /metrics`. None needs an API key: they serve load balancers and monitoring.
 */
export const operationsEndpoints =
  (operations: Operations = {}): Middleware =>
  async (ctx, next) => {
    const path = ctx.path
    if (
      path !== '/healthz' &&
      path !== '/readyz' &&
      (path !== '/metrics' || operations.metrics === undefined)
    )
      return next()
    ctx.state.route = path
    if (!READ_ONLY.includes(ctx.method))
      return sendProblem(ctx, { _tag: 'MethodNotAllowed', allow: READ_ONLY })
    // Probes and scrapes must see the state of now, never a cached answer.
    ctx.set('Cache-Control', 'no-store')
    if (path === '/healthz') return sendJson(ctx, 200, '{"status":"ok"}')
    if (path === '/readyz') {
      const ready = operations.ready === undefined ? E.right(undefined) : await operations.ready()()
      return E.isLeft(ready) ? sendProblem(ctx, ready.left) : sendJson(ctx, 200, '{"status":"ready"}')
    }
    const page = await operations.metrics!()
    // Exactly the exposition's media type: ctx.type would add a charset to it.
    ctx.set('Content-Type', page.contentType)
    ctx.status = 200
    ctx.body = page.body
  }
