import { performance } from 'node:perf_hooks'
import type { HttpLogger } from './logger.js'
import type { ObservedRequest } from './operations-endpoints.js'
import type { HttpContext } from './request-state.js'

/**
 * Logs and counts one answered request, given when it started (performance.now()) and whether
 * its client went away first.
 */
export type RequestObserver = (ctx: HttpContext, startedMs: number, aborted: boolean) => void

const LONGEST_PATH_LOGGED = 256
// nginx's status for a request whose client closed the connection before the answer: no answer
// was sent, so the line must not show one (a 500 for an error thrown after the client left).
const CLIENT_CLOSED_REQUEST = 499

// The path of the request line as sent, without its query: what a scan tried.
const rawPathOf = (url: string): string => {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  return path.length <= LONGEST_PATH_LOGGED ? path : `${path.slice(0, LONGEST_PATH_LOGGED)}…`
}

/**
 * Prepares what happens once a request is answered: one log line with what the adapter itself
 * recorded (never a header's value, so neither API keys nor other credentials reach the log; the
 * client's address, and the path of a request no route matched), and
 * `observe`, the host's counters. A request costs one record, shared by both, and nothing at all
 * when the log level is above info and the host counts nothing.
 */
export const observeRequests = (
  logger: HttpLogger,
  observe?: (request: ObservedRequest) => void,
): RequestObserver => {
  const writeLine = logger.request
  return (ctx, startedMs, aborted) => {
    const logged = logger.isLevelEnabled?.('info') ?? true
    if (!logged && observe === undefined) return
    const { state } = ctx
    const request: ObservedRequest = {
      requestId: state.requestId ?? '',
      method: ctx.method,
      route: state.route ?? null,
      operation: state.operation ?? null,
      status: aborted ? CLIENT_CLOSED_REQUEST : ctx.status,
      durationMs: performance.now() - startedMs,
      apiKeyId: state.apiKey?.keyId ?? null,
      clientAddress: state.clientAddress ?? '',
      path: state.route === undefined ? rawPathOf(ctx.req.url ?? '') : null,
      aborted,
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
      logger.error({ requestId: request.requestId, err: error }, 'observing a request failed')
    }
  }
}
