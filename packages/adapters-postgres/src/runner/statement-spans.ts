import {
  context,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api'
import { querySummary } from './query-summary.js'
import { recording, tracer } from './tracer.js'
import { sqlstateOf } from './store-errors.js'

/** Where a statement went, for its span: a connection's database and server (pg.Client's public fields). */
export type SpanTarget = { readonly database?: unknown; readonly host?: unknown; readonly port?: unknown }

/** A wait of the pool for a connection shorter than this gets no span of its own, in ms. */
export const POOL_WAIT_SPAN_MS = 5

/**
 * A CLIENT span for one statement, a child of `parent` (the active context unless given), named by the
 * statement's summary (`SELECT pets`), with the stable database conventions and never a parameter value;
 * undefined when the parent does not record (no SDK, or not sampled), so tracing off costs one lookup.
 */
export const startStatementSpan = (
  statement: { readonly text: string; readonly summary?: string },
  target: SpanTarget,
  parent: Context = context.active(),
): Span | undefined => {
  if (!recording(parent)) return undefined
  const summary =
    statement.summary === undefined
      ? querySummary(statement.text)
      : { operation: statement.summary.split(' ')[0]!, text: statement.summary }
  const attributes: Attributes = {
    'db.system.name': 'postgresql',
    'db.operation.name': summary.operation,
    'db.query.summary': summary.text,
  }
  return tracer().startSpan(
    summary.text,
    { kind: SpanKind.CLIENT, attributes: { ...attributes, ...targetAttributes(target) } },
    parent,
  )
}

// Where a statement ran: `db.namespace`, `server.address`, `server.port`, as far as the connection says.
const targetAttributes = ({ database, host, port }: SpanTarget): Attributes => ({
  ...(typeof database === 'string' && database !== '' ? { 'db.namespace': database } : {}),
  ...(typeof host === 'string' && host !== '' ? { 'server.address': host } : {}),
  ...(typeof port === 'number' ? { 'server.port': port } : {}),
})

/**
 * Ends a statement's span: on failure with the SQLSTATE (`db.response.status_code`) and `error.type`; with
 * where it ran (`on`) when the span began before a connection was chosen (a creation queued for a batch).
 */
export const endStatementSpan = (
  span: Span | undefined,
  error: unknown,
  batchSize?: number,
  on?: SpanTarget,
): void => {
  if (span === undefined) return
  if (on !== undefined) span.setAttributes(targetAttributes(on))
  if (batchSize !== undefined && batchSize > 1) span.setAttribute('db.operation.batch.size', batchSize)
  if (error !== undefined && error !== null) {
    const sqlstate = sqlstateOf(error)
    if (sqlstate !== undefined) span.setAttribute('db.response.status_code', sqlstate)
    span.setAttribute('error.type', sqlstate ?? (error instanceof Error ? error.name : 'Error'))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end()
}

/** A span for a wait of the pool from `startedAt` (epoch ms) to now, when it lasted POOL_WAIT_SPAN_MS or more. */
export const poolWaitSpan = (parent: Context, startedAt: number, error: unknown): void => {
  const now = Date.now()
  if (now - startedAt < POOL_WAIT_SPAN_MS || !recording(parent)) return
  const span = tracer().startSpan(
    'postgresql pool wait',
    { kind: SpanKind.INTERNAL, startTime: startedAt, attributes: { 'db.system.name': 'postgresql' } },
    parent,
  )
  if (error !== undefined && error !== null) {
    span.setAttribute('error.type', sqlstateOf(error) ?? (error instanceof Error ? error.name : 'Error'))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end(now)
}

/**
 * Checks a connection out for the caller of now (its context read now, as a port reads it): a span for the
 * pool's wait when it lasted long enough; `then` is given the context to parent the statements with, when
 * it records.
 */
export const tracedCheckOut = <E>(
  checkOut: (done: (error: unknown, entry?: E) => void) => void,
  then: (error: unknown, entry: E | undefined, parent: Context | undefined) => void,
): void => {
  const parent = context.active()
  const traced = recording(parent)
  const askedAt = traced ? Date.now() : 0
  checkOut((error, entry) => {
    if (traced) poolWaitSpan(parent, askedAt, error)
    then(error, entry, traced ? parent : undefined)
  })
}
