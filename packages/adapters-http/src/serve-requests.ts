import { context, trace, type Tracer } from '@opentelemetry/api'
import { HEADERS } from '@pets/wire'
import { performance } from 'node:perf_hooks'
import { asksToUpgrade, isHostValue, sentMoreThanOnce, speaksOtherVersion } from './header-lines.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { PetsRouterOptions } from './create-pets-router.js'
import type { HttpLogger } from './logger.js'
import { answeredOnSocket, refusalReason } from './connection/answer-client-error.js'
import { clientAddressFinder } from './client-address.js'
import { answering, wasCut, type CutLine } from './cut-requests.js'
import { lingerAfterAnswer } from './connection/linger.js'
import { hasNoContent } from './connection/continue-on-read.js'
import { observeRequests } from './observe-requests.js'
import type { ObservedRequest } from './operations-endpoints.js'
import { preparePetsApi, type PetsApi } from './pets-api.js'
import type { Problem } from './problems.js'
import { READ_ONLY, type PublicEndpoints } from './public-endpoints.js'
import { refusalOf } from './connection/refused-request.js'
import { requestIdOf } from './request-id.js'
import { defaultTracer, endRequestSpan, startRequestSpan, traceIdsOf } from './request-span.js'
import { pathOf, type HttpContext, type HttpMiddleware } from './request-state.js'
import { sendProblem } from './respond.js'

/** What serveRequests needs: the pet operations, the endpoints outside their prefix, a logger. */
export type ServeRequestsOptions = {
  /** None for an app of endpoints outside the API only, such as the metrics of their own port. */
  readonly pets?: PetsRouterOptions
  /** Looked up in order for a path outside the API's prefix; none found is 404. */
  readonly outside: ReadonlyArray<PublicEndpoints>
  readonly logger: HttpLogger
  readonly observe?: (request: ObservedRequest) => void
  /** Where the server span of each request goes; unset: the global tracer provider's (a no-op without an SDK). */
  readonly tracer?: Tracer
}

// Headers a defect's 500 keeps: the request id, and `Connection` (the host may close it to shut down).
const KEPT_ON_ERROR = new Set(['x-request-id', 'connection'])
const NOT_FOUND: Problem = { _tag: 'RouteNotFound' }
const NOT_ALLOWED: Problem = { _tag: 'MethodNotAllowed', allow: READ_ONLY }
const INTERNAL_ERROR: Problem = { _tag: 'InternalError' }
const NO_HOST: Problem = { _tag: 'MalformedRequest', reason: 'An HTTP/1.1 request must carry a Host header.' }
const BAD_HOST: Problem = {
  _tag: 'MalformedRequest',
  reason: 'The Host header must be a host name or address, with a port if any.',
}
const HOSTS: Problem = {
  _tag: 'MalformedRequest',
  reason: 'A request must carry one Host header, not several.',
}
const BAD_TARGET: Problem = { _tag: 'MalformedRequest', reason: 'The request target is not a valid URL.' }
const OTHER_VERSION: Problem = {
  _tag: 'MalformedRequest',
  reason: refusalReason({ code: 'HPE_INVALID_VERSION' }),
}

// RFC 9112 section 3.2: an HTTP/1.1 request without Host is refused with 400, as node's parser would (a
// server made with `requireHostHeader: false` lets it through, so that it gets an Error body, not node's bare
// status line), and so is one with several Host lines (node keeps the first), a Host that is no host, or a
// version llhttp lets through that is not 1.x (0.9, 2.0: speaksOtherVersion), before anything else.
const headProblem = (req: IncomingMessage): Problem | undefined => {
  if (speaksOtherVersion(req)) return OTHER_VERSION
  if (req.headers.host === undefined) {
    // A request node's parser refused, handed over to be answered, logged and counted (refused-request.ts):
    // it has no headers, so only requests without Host pay the lookup.
    const refusal = refusalOf(req)
    if (refusal !== undefined) return { _tag: 'MalformedRequest', reason: refusal }
    return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? NO_HOST : undefined
  }
  if (!isHostValue(req.headers.host)) return BAD_HOST
  return sentMoreThanOnce(req, 'host') ? HOSTS : undefined
}

// What every answer carries: `Cache-Control: no-store` unless a handler sets a policy of its own.
const stamp = (res: ServerResponse, requestId: string) => {
  res.setHeader(HEADERS.requestId, requestId)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Cache-Control', 'no-store')
}

// A request whose body was sent but not read (refused before reading, or too large): node would read and
// drop the rest to keep the connection, so a client could keep it streaming. A body taken whole is read,
// though its 'end' may not be emitted yet (a pipelined request's, read as its turn came).
const bodyLeftUnread = (req: IncomingMessage): boolean =>
  !req.readableEnded && !(req.complete && req.readableLength === 0) && !hasNoContent(req)

// The client went away before its answer: node destroys the response with the connection.
const clientGone = (ctx: HttpContext): boolean => ctx.res.destroyed

/**
 * The service's only Koa middleware: request id, client address and common headers, one dispatch (pets
 * under their prefix, else an exact-path endpoint, else 404), a thrown error as a logged 500, one log
 * line, one server span. A client that went away is no server error: its line says `aborted`, at info.
 * With it, `cutLine`: the line and span of a request a shutdown cut (cut-requests.ts), written then.
 */
export const serveRequests = ({
  pets,
  outside,
  logger,
  observe,
  tracer = defaultTracer(),
}: ServeRequestsOptions): { readonly middleware: HttpMiddleware; readonly cutLine: CutLine } => {
  const api: PetsApi | undefined = pets === undefined ? undefined : preparePetsApi(pets)
  const clientAddressOf = api?.clientAddressOf ?? clientAddressFinder()
  // A caller's trace context, only with a key known in memory: no key reaches endpoints outside the API.
  const followsTraceOf = api?.knownCaller ?? (() => false)
  const observed = observeRequests(logger, observe)
  const serveOutside = async (ctx: HttpContext, path: string) => {
    for (const find of outside) {
      const endpoint = find(path)
      if (endpoint === undefined) continue
      ctx.state.route = endpoint.route
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return sendProblem(ctx, NOT_ALLOWED)
      return endpoint.serve(ctx)
    }
    sendProblem(ctx, NOT_FOUND)
  }
  const dispatch = (ctx: HttpContext) => {
    const refused = headProblem(ctx.req)
    if (refused !== undefined) {
      ctx.set('Connection', 'close')
      return sendProblem(ctx, refused)
    }
    // llhttp stops reading a packet at the end of a request that asks to upgrade, and node, with no 'upgrade'
    // listener, drops the rest of it: a request pipelined behind was never answered, its connection left open.
    // The answer closes the connection instead, so that its client sends those again (RFC 9112 section 9.3.2).
    if (asksToUpgrade(ctx.req)) ctx.set('Connection', 'close')
    const path = pathOf(ctx)
    // A client's mistake, refused before anything else as what node's parser refuses is.
    if (path === undefined) return sendProblem(ctx, BAD_TARGET)
    if (path === null) return sendProblem(ctx, NOT_FOUND)
    return api?.owns(path) === true ? api.serve(ctx) : serveOutside(ctx, path)
  }

  // Whatever it still waits for, the request has its line now, as aborted, with what it knew so far.
  const cutLine: CutLine = (ctx) => {
    const active = ctx.state.traceContext
    const span = active === undefined ? undefined : trace.getSpan(active)
    observed(ctx, ctx.state.startedMs ?? performance.now(), true, span && traceIdsOf(span), 'cut')
    if (span !== undefined) endRequestSpan(span, ctx, true, undefined, 'cut')
  }

  const middleware: HttpMiddleware = async (ctx) => {
    const startedMs = performance.now()
    // What a cut at shutdown reads; two fields written, nothing allocated (cut-requests.ts).
    ctx.state.startedMs = startedMs
    answering(ctx)
    const { span, active } = startRequestSpan(tracer, ctx.req, followsTraceOf)
    const ids = traceIdsOf(span)
    const header = ctx.req.headers['x-request-id']
    const requestId = requestIdOf(typeof header === 'string' ? header : undefined)
    ctx.state.requestId = requestId
    // Now, while the connection is open: a closed socket no longer knows its peer.
    ctx.state.clientAddress = clientAddressOf(ctx.req)
    stamp(ctx.res, requestId)
    let thrown: unknown
    if (active !== undefined) ctx.state.traceContext = active
    try {
      // The span active where the request's own work runs (the store's spans are its children); after an
      // await, each call into the domain enters it again (withRequestSpan).
      await (active === undefined ? dispatch(ctx) : context.with(active, dispatch, undefined, ctx))
    } catch (error) {
      thrown = error
      if (clientGone(ctx))
        logger.info(
          { requestId, ...ids, err: error },
          wasCut(ctx.res)
            ? 'request failed after the shutdown cut it'
            : 'request failed after its client went away',
        )
      else {
        logger.error({ requestId, ...ids, err: error }, 'request failed')
        // A defect may have set headers meant for a success.
        for (const name of Object.keys(ctx.response.headers)) if (!KEPT_ON_ERROR.has(name)) ctx.remove(name)
        stamp(ctx.res, requestId)
        // CONTRACT: every answer of a deprecated operation says so, once its caller is authenticated.
        const own = api?.headersOf(ctx.state.operation)
        if (own !== undefined) ctx.set(own)
        sendProblem(ctx, INTERNAL_ERROR)
      }
    }
    let aborted = clientGone(ctx)
    // Read only for a request without its answer: one the shutdown cut has its line and span already.
    const cut = aborted && wasCut(ctx.res)
    // Not gone: node's parser refused the rest of the request and answerClientError answered it 400 on the socket.
    if (aborted && !cut && answeredOnSocket(ctx.res)) {
      aborted = false
      ctx.status = 400
    }
    if (cut) return
    if (!aborted && bodyLeftUnread(ctx.req)) {
      ctx.set('Connection', 'close')
      lingerAfterAnswer(ctx.res)
    }
    observed(ctx, startedMs, aborted, ids)
    endRequestSpan(span, ctx, aborted, thrown)
  }
  return { middleware, cutLine }
}
