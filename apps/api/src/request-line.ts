import type { ObservedRequest } from '@pets/adapters-http'
import { pino } from 'pino'
import type { Logger } from './logger.js'
import { LineBuffer } from './line-buffer.js'

const INFO = 30

// A string, a number, or null as JSON: the fields of a request line are nothing else.
const text = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value))

/**
 * The line of an answered request, written straight to the logger's destination: the same JSON
 * line that `logger.info(request, 'request')` writes (the same keys in the same order, the
 * logger's bindings included; a test holds the two equal), without pino's walk over an object of
 * unknown shape and its redaction, which the record does not need: it holds no header's value.
 * Undefined unless the logger writes JSON lines to the service's own buffered destination (a
 * pretty or a caller's destination gets `info`, as before).
 */
export const requestLineWriter = (logger: Logger): ((request: ObservedRequest) => void) | undefined => {
  const symbols = logger as unknown as Record<symbol, unknown>
  const stream = symbols[pino.symbols.streamSym]
  const bindings = symbols[pino.symbols.chindingsSym]
  if (!(stream instanceof LineBuffer) || typeof bindings !== 'string') return undefined
  const head = `{"level":${INFO},"time":`
  return (r) =>
    stream.write(
      `${head}${Date.now()}${bindings},"requestId":${text(r.requestId)},"method":${text(r.method)},` +
        `"route":${text(r.route)},"operation":${text(r.operation)},"status":${r.status},` +
        `"durationMs":${r.durationMs},"apiKeyId":${text(r.apiKeyId)},` +
        `"clientAddress":${text(r.clientAddress)},"path":${text(r.path)},"aborted":${r.aborted},` +
        `"msg":"request"}\n`,
    )
}
