import { propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api'
import * as E from 'fp-ts/lib/Either.js'
import type { Aborted, NetworkFailure } from './client-errors.js'
import type { ReadResponse } from './decode-response.js'

/** One attempt's client span, and the headers that carry it to the service (`traceparent`). */
export type TracedAttempt = { readonly span: Span; readonly headers: Record<string, string> }

const tracer = trace.getTracer('@pets/client')

const portOf = (url: URL): number =>
  url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port)

/**
 * Starts the CLIENT span of one attempt (`{method}`, `http.request.resend_count` on a retry) when the
 * caller's context (`parent`, read when the call began: a retry comes after awaits, where a synchronous
 * context manager holds no context) holds a span, and writes its context into headers through the global
 * propagator; otherwise nothing. Without an SDK, @opentelemetry/api makes all of it a no-op.
 */
export const startAttempt = (
  method: string,
  url: string,
  resendCount: number,
  parent: Context,
): TracedAttempt | undefined => {
  if (trace.getSpan(parent) === undefined) return undefined
  const target = new URL(url)
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': target.hostname.replace(/^\[(.*)\]$/, '$1'),
        'server.port': portOf(target),
        'url.full': url,
        ...(resendCount === 0 ? {} : { 'http.request.resend_count': resendCount }),
      },
    },
    parent,
  )
  const headers: Record<string, string> = {}
  propagation.inject(trace.setSpan(parent, span), headers)
  return { span, headers }
}

// What failed without an answer: an abort, the cause's code (ECONNREFUSED), a timeout, or the error's name.
// The HTTP span conventions: error.type is predictable and of low cardinality, so an abort is AbortError (what
// fetch throws for one) whatever the caller gave abort(): its reason's name or code says nothing of the attempt.
const failureType = (failure: NetworkFailure | Aborted): string => {
  if (failure._tag === 'Aborted') return 'AbortError'
  const { name, cause: inner } = (failure.cause ?? {}) as { name?: unknown; cause?: { code?: unknown } }
  if (typeof inner?.code === 'string') return inner.code
  return typeof name === 'string' ? name : '_OTHER'
}

/** Ends an attempt's span with its outcome: the status, and `error.type` for a 4xx, a 5xx or no answer. */
export const endAttempt = (
  traced: TracedAttempt | undefined,
  outcome: E.Either<NetworkFailure | Aborted, ReadResponse>,
): void => {
  if (traced === undefined) return
  const { span } = traced
  if (E.isLeft(outcome)) {
    span.setAttribute('error.type', failureType(outcome.left))
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.left.reason })
  } else {
    const { status } = outcome.right
    span.setAttribute('http.response.status_code', status)
    if (status >= 400) {
      span.setAttribute('error.type', String(status))
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
  }
  span.end()
}
