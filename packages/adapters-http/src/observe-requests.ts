import { performance } from 'node:perf_hooks'
import type { HttpLogger } from './logger.js'
import type { ObservedRequest } from './operations-endpoints.js'
import type { HttpContext } from './request-state.js'

/** Logs and counts one answered request, given when it started (performance.now()). */
export type RequestObserver = (ctx: HttpContext, startedMs: number) => void

/**
 * Prepares what happens once a request is answered: one log line with what the adapter itself
 * recorded (never a header's value, so neither API keys nor other credentials reach the log), and
 * `observe`, the host's counters. A request costs one record, shared by both, and nothing at all
 * when the log level is above info and the host counts nothing.
 */
export const observeRequests =
  (logger: HttpLogger, observe?: (request: ObservedRequest) => void): RequestObserver =>
  (ctx, startedMs) => {
    const logged = logger.isLevelEnabled?.('info') ?? true
    if (!logged && observe === undefined) return
    const { state } = ctx
    const request: ObservedRequest = {
      requestId: state.requestId ?? '',
      method: ctx.method,
      route: state.route ?? null,
      operation: state.operation ?? null,
      status: ctx.status,
      durationMs: performance.now() - startedMs,
      apiKeyId: state.apiKey?.keyId ?? null,
    }
    if (logged) logger.info(request, 'request')
    if (observe === undefined) return
    try {
      observe(request)
    } catch (error) {
      // Counting a request must never cost its answer.
      logger.error({ requestId: request.requestId, err: error }, 'observing a request failed')
    }
  }
