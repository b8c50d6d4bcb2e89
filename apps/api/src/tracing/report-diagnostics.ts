import { diag, DiagLogLevel } from '@opentelemetry/api'
import type { Logger } from '../log/logger.js'

/** The SDK's own complaints (an export that failed, spans dropped) are logged at most this often. */
export const DIAGNOSTICS_EVERY_MS = 60_000

// The SDK's error handler hands over an exception as JSON text: its message says what happened.
const readable = (text: string): string => {
  try {
    const parsed = JSON.parse(text) as { message?: unknown }
    return typeof parsed.message === 'string' ? parsed.message : text
  } catch {
    return text
  }
}

/**
 * Logs what the OpenTelemetry SDK reports at warn and above (a receiver that cannot be reached, a full
 * queue) as a `warn` line "tracing: spans may be lost": tracing never fails a request, but an operator
 * should learn that spans are lost. One line a minute at most, with how many reports came meanwhile;
 * `quiet` ends it (the shutdown's own line, start-tracing.ts, counts what was lost).
 */
export const reportDiagnostics = (
  logger: Logger,
  everyMs = DIAGNOSTICS_EVERY_MS,
): { readonly quiet: () => void } => {
  let lastMs = Number.NEGATIVE_INFINITY
  let unsaid = 0
  let quiet = false
  const report = (message: string, ...args: Array<unknown>) => {
    if (quiet) return
    const now = performance.now()
    if (now - lastMs < everyMs) return void unsaid++
    lastMs = now
    const detail = [
      readable(message),
      ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg))),
    ]
    logger.warn({ detail: detail.join(' '), reportsSinceLast: unsaid }, 'tracing: spans may be lost')
    unsaid = 0
  }
  diag.setLogger(
    { error: report, warn: report, info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  )
  // Once the shutdown has said what was lost: an export that fails after it has nothing more to say.
  return { quiet: () => void (quiet = true) }
}
