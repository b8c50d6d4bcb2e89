import { performance } from 'node:perf_hooks'
import type { HttpLogger } from './logger.js'
import type { ObservedRequest } from './operations-endpoints.js'
import type { TraceIds } from './request-span.js'
import type { HttpContext } from './request-state.js'
import { shortened, targetOf } from './request-target.js'
import { storeFailureOf } from './store-failure.js'

/**
 * Logs and counts one answered request, given its start (performance.now()), whether its client left (or
 * a shutdown cut it: `outcome` says so), and the ids of its span when it is sampled.
 */
export type RequestObserver = (
  ctx: HttpContext,
  startedMs: number,
  aborted: boolean,
  ids?: TraceIds,
  outcome?: 'cut',
) => void

// nginx's "client closed request": no answer was sent, so the line must not show one (such as a 500).
const CLIENT_CLOSED_REQUEST = 499

/**
 * Prepares what follows an answer: one log line (never a header's value, so no credential reaches the
 * log) and the host's `observe`, sharing one record; nothing when neither logs at info nor counts.
 */
export const observeRequests = (
  logger: HttpLogger,
  observe?: (request: ObservedRequest) => void,
): RequestObserver => {
  const writeLine = logger.request
  return (ctx, startedMs, aborted, ids, outcome) => {
    const logged = logger.isLevelEnabled?.('info') ?? true
    if (!logged && observe === undefined) return
    const { state } = ctx
    const request: ObservedRequest = {
      requestId: state.requestId ?? '',
      // Always both keys, undefined when untraced (no line shows them then): one shape for every record.
      traceId: ids?.traceId,
      spanId: ids?.spanId,
      method: ctx.method,
      route: state.route ?? null,
      operation: state.operation ?? null,
      status: aborted ? CLIENT_CLOSED_REQUEST : ctx.status,
      durationMs: performance.now() - startedMs,
      apiKeyId: state.apiKey?.keyId ?? null,
      clientAddress: state.clientAddress ?? '',
      path: state.route === undefined ? shortened(targetOf(ctx.req.url ?? '').path) : null,
      aborted,
      // As the ids: always the key, undefined (no line shows it) but for a request a shutdown cut.
      outcome,
      // The same: undefined but for a request its store could not serve.
      store: storeFailureOf(ctx, aborted),
    }
    if (logged) {
      if (writeLine !== undefined) writeLine(request)
      else logger.info(request, 'request')
    }
    if (observe === undefined) return
    try {
      observe(request)
    } catch (error) {
      // Counting a request must never cost its answer.
      logger.error({ requestId: request.requestId, ...ids, err: error }, 'observing a request failed')
    }
  }
}
