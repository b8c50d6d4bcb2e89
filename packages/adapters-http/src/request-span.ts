import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { IncomingMessage } from 'node:http'
import { knownMethodOf } from './known-methods.js'
import type { HttpContext } from './request-state.js'
import { sentMethodOf } from './connection/refused-request.js'
import { shortened, targetOf } from './request-target.js'

/** The ids of a sampled request's span: in each of its log lines, so a log search finds its trace and back. */
export type TraceIds = { readonly traceId: string; readonly spanId: string }

/** A request's server span, and the context its handler runs in (only while the span records). */
export type RequestSpan = { readonly span: Span; readonly active: Context | undefined }

/** The tracer of the server spans: the global provider's, which is a no-op until an SDK registers one. */
export const defaultTracer = (): Tracer => trace.getTracer('@pets/adapters-http')

// What a Host header should hold, a host name or an IPv6 literal, then a port; anything else is left out.
const NAME = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})$/
const PORT = /^[0-9]{0,5}$/

/** Whether a request's own trace context (`traceparent`, `tracestate`) is to be followed. */
export type FollowsTraceOf = (req: IncomingMessage) => boolean

/**
 * Starts the server span of a request as it arrives: its parent is the caller's `traceparent` (through the
 * global propagator: an invalid one is ignored, as is every one without an SDK) when `follows` says so, or
 * always without it; else the span begins a trace of its own. Only the method is given at start (the
 * built-in samplers read no attribute); what a span that records carries is added at its end.
 */
export const startRequestSpan = (
  tracer: Tracer,
  req: IncomingMessage,
  follows?: FollowsTraceOf,
): RequestSpan => {
  // Asked only of a request that sends a traceparent: the others cost nothing more.
  const followed = req.headers.traceparent !== undefined && (follows === undefined || follows(req))
  const parent = followed ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT
  const method = knownMethodOf(req.method)
  const span = tracer.startSpan(
    method === '_OTHER' ? 'HTTP' : method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  )
  // Unsampled, nothing runs in a context of its own: no closure, no AsyncLocalStorage frame per request.
  return { span, active: span.isRecording() ? trace.setSpan(parent, span) : undefined }
}

/**
 * Calls `work` with the request's span active, when it records (context.with). CONTRACT: a port reads the
 * active context when it is called (when its TaskEither is made, synchronously, not when it runs: fp-ts
 * runs a mapped task a microtask later), so its spans are the request's children under any context
 * manager, AsyncLocalStorage or a synchronous one. Each call into the domain after an await of the request
 * goes through here; unsampled, it is a plain call.
 */
export const withRequestSpan = <A extends Array<unknown>, R>(
  ctx: HttpContext,
  work: (...args: A) => R,
  ...args: A
): R => {
  const active = ctx.state.traceContext
  return active === undefined ? work(...args) : context.with(active, work, undefined, ...args)
}

/**
 * The ids to log of a span when it is recorded and sampled (exported); none otherwise: a no-op tracer's span
 * carries its caller's ids, which name no span of ours.
 */
export const traceIdsOf = (span: Span): TraceIds | undefined => {
  if (!span.isRecording()) return undefined
  const { traceId, spanId, traceFlags } = span.spanContext()
  return (traceFlags & TraceFlags.SAMPLED) === 0 ? undefined : { traceId, spanId }
}

// server.address and server.port of a well-formed Host header (a name, or an IPv6 literal, then a port),
// the scheme's port when it names none; split by hand, tested without captures: cheaper than an exec.
const setHost = (span: Span, req: IncomingMessage, scheme: string): void => {
  const host = req.headers.host ?? ''
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.lastIndexOf(':')
  const address = end <= 0 ? host : host.slice(0, end)
  const port = end <= 0 || end === host.length ? '' : host.slice(host[end] === ':' ? end + 1 : end)
  if (!NAME.test(address) || !PORT.test(port)) return
  span.setAttribute('server.address', address.startsWith('[') ? address.slice(1, -1) : address)
  span.setAttribute('server.port', port === '' ? (scheme === 'https' ? 443 : 80) : Number(port))
}

/**
 * Ends a request's span with what the answer was: named `{method} {route}` (the template, never the raw
 * path: `GET /v1/pets/{petId}`), the stable HTTP attributes, `error.type` and an error status for a 5xx or
 * a client gone before its answer (no status then; `cut`: the host's shutdown closed the connection). Never
 * a header's value but the Host's, if well formed. One setAttribute each: no object is built for them.
 */
export const endRequestSpan = (
  span: Span,
  ctx: HttpContext,
  aborted: boolean,
  error?: unknown,
  outcome?: 'cut',
): void => {
  if (!span.isRecording()) return
  const { req } = ctx
  const method = knownMethodOf(req.method)
  const route = ctx.state.route
  const scheme = (req.socket as { encrypted?: boolean } | null)?.encrypted === true ? 'https' : 'http'
  const target = targetOf(req.url ?? '')
  if (method === '_OTHER')
    span.setAttribute('http.request.method_original', shortened(sentMethodOf(req) ?? req.method ?? ''))
  if (route !== undefined) {
    span.updateName(`${method === '_OTHER' ? 'HTTP' : method} ${route}`)
    span.setAttribute('http.route', route)
  }
  span.setAttribute('url.scheme', scheme)
  span.setAttribute('url.path', shortened(target.path))
  if (target.query !== undefined) span.setAttribute('url.query', shortened(target.query))
  setHost(span, req, scheme)
  // Unknown (the socket closed before its peer was read): left out, not ''.
  const client = ctx.state.clientAddress
  if (client !== undefined && client !== '') span.setAttribute('client.address', client)
  if (aborted) {
    span.setAttribute('error.type', 'aborted')
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message:
        outcome === 'cut'
          ? 'the shutdown cut it before its answer'
          : 'the client went away before its answer',
    })
  } else {
    const status = ctx.status
    span.setAttribute('http.response.status_code', status)
    if (error !== undefined) span.recordException(error as Error)
    if (status >= 500) {
      span.setAttribute('error.type', String(status))
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
  }
  span.end()
}
