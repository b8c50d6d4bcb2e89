import type { ObservedRequest } from '@pets/adapters-http'
import { pino } from 'pino'
import type { Logger } from './logger.js'
import { LineBuffer } from './line-buffer.js'

const INFO = 30

// What JSON.stringify escapes in a string; a string without any is the same between quotes.
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/
// A string or null as JSON: the text fields of a request line are nothing else.
const text = (value: string | null): string =>
  value === null ? 'null' : ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`

// The ids of a sampled request's span, where pino writes them: after the request id; nothing when untraced.
const traced = ({ traceId, spanId }: ObservedRequest): string =>
  (traceId === undefined ? '' : `,"traceId":${text(traceId)}`) +
  (spanId === undefined ? '' : `,"spanId":${text(spanId)}`)

/**
 * The line of an answered request, made by LineBuffer.defer at the end of the turn: the line
 * `logger.info(request, 'request')` writes (a test holds them equal), without pino's walk and redaction;
 * undefined unless the logger writes to LineBuffer. Reads pino's private `streamSym` and `chindingsSym`
 * (guard: test/private-api-guards.test.ts; ARCHITECTURE.md, 'Made by hand, on purpose', row "request line").
 */
export const requestLineWriter = (logger: Logger): ((request: ObservedRequest) => void) | undefined => {
  const symbols = logger as unknown as Record<symbol, unknown>
  const stream = symbols[pino.symbols.streamSym]
  const bindings = symbols[pino.symbols.chindingsSym]
  if (!(stream instanceof LineBuffer) || typeof bindings !== 'string') return undefined
  const head = `{"level":${INFO},"time":`
  return stream.defer<ObservedRequest>(
    (r, time) =>
      `${head}${time}${bindings},"requestId":${text(r.requestId)}${traced(r)},"method":${text(r.method)},` +
      `"route":${text(r.route)},"operation":${text(r.operation)},"status":${r.status},` +
      `"durationMs":${r.durationMs},"apiKeyId":${text(r.apiKeyId)},` +
      `"clientAddress":${text(r.clientAddress)},"path":${text(r.path)},"aborted":${r.aborted},` +
      `${r.outcome === undefined ? '' : `"outcome":${text(r.outcome)},`}` +
      `${r.store === undefined ? '' : `"store":${JSON.stringify(r.store)},`}"msg":"request"}\n`,
  )
}
