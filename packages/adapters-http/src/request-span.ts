import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { IncomingMessage } from 'node:http'
import type { HttpContext } from './request-state.js'

/** The ids of a sampled request's span: in each of its log lines, so a log search finds its trace and back. */
export type TraceIds = { readonly traceId: string; readonly spanId: string }

/** A request's server span, and the context its handler runs in (only while the span records). */
export type RequestSpan = { readonly span: Span; readonly active: Context | undefined }

/** The tracer of the server spans: the global provider's, which is a no-op until an SDK registers one. */
export const defaultTracer = (): Tracer => trace.getTracer('@pets/adapters-http')

// The methods of the HTTP semantic conventions; any other is `_OTHER`, so strangers make no new names.
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
])
const LONGEST_TEXT = 256
// A host name or an IPv6 literal, then a port: what a Host header should be; anything else is left out.
const HOST = /^(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(?::([0-9]{1,5}))?$/

const methodOf = (req: IncomingMessage): string => {
  const method = req.method ?? ''
  return KNOWN_METHODS.has(method) ? method : '_OTHER'
}

const cut = (text: string): string => (text.length <= LONGEST_TEXT ? text : `${text.slice(0, LONGEST_TEXT)}…`)

/**
 * Starts the server span of a request as it arrives: its parent is the caller's `traceparent` (through the
 * global propagator: an invalid one is ignored, as is every one without an SDK). Only the method is given at
 * start (the built-in samplers read no attribute); what a span that records carries is added at its end.
 */
export const startRequestSpan = (tracer: Tracer, req: IncomingMessage): RequestSpan => {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers)
  const method = methodOf(req)
  const span = tracer.startSpan(
    method === '_OTHER' ? 'HTTP' : method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  )
  // Unsampled, nothing runs in a context of its own: no closure, no AsyncLocalStorage frame per request.
  return { span, active: span.isRecording() ? trace.setSpan(parent, span) : undefined }
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

const hostAttributes = (req: IncomingMessage, scheme: string): Attributes => {
  const found = HOST.exec(req.headers.host ?? '')
  if (found === null) return {}
  const port = found[2] === undefined ? (scheme === 'https' ? 443 : 80) : Number(found[2])
  return { 'server.address': found[1], 'server.port': port }
}

/**
 * Ends a request's span with what the answer was: named `{method} {route}` (the template, never the raw
 * path: `GET /v1/pets/{petId}`), the stable HTTP attributes, `error.type` and an error status for a 5xx or
 * a client gone before its answer (no status then). Never a header's value but the Host's, if well formed.
 */
export const endRequestSpan = (span: Span, ctx: HttpContext, aborted: boolean, error?: unknown): void => {
  if (!span.isRecording()) return
  const { req } = ctx
  const method = methodOf(req)
  const route = ctx.state.route
  const scheme = (req.socket as { encrypted?: boolean } | null)?.encrypted === true ? 'https' : 'http'
  const url = req.url ?? ''
  const query = url.indexOf('?')
  const status = ctx.status
  if (route !== undefined) span.updateName(`${method === '_OTHER' ? 'HTTP' : method} ${route}`)
  span.setAttributes({
    ...(method === '_OTHER' ? { 'http.request.method_original': cut(req.method ?? '') } : {}),
    'url.scheme': scheme,
    'url.path': cut(query === -1 ? url : url.slice(0, query)),
    ...(query === -1 ? {} : { 'url.query': cut(url.slice(query + 1)) }),
    ...(route === undefined ? {} : { 'http.route': route }),
    ...hostAttributes(req, scheme),
    'client.address': ctx.state.clientAddress ?? '',
    'network.protocol.version': req.httpVersion,
    ...(aborted ? {} : { 'http.response.status_code': status }),
  })
  if (error !== undefined && !aborted) span.recordException(error as Error)
  if (aborted) {
    span.setAttribute('error.type', 'aborted')
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away before its answer' })
  } else if (status >= 500) {
    span.setAttribute('error.type', String(status))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end()
}
