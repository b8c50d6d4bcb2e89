import { trace } from '@opentelemetry/api'
import type { HttpLogger } from '@pets/adapters-http'
import { createRequire } from 'node:module'
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import type PinoPretty from 'pino-pretty'
import type { AppConfig } from '../config.js'
import { LineBuffer } from './line-buffer.js'
import { logWriteBytes } from './line-chunks.js'
import { droppedLinesLine } from './line-notices.js'
import { requestLineWriter } from './request-line.js'

/** The service's logger: a pino logger. */
export type Logger = PinoLogger

/** JSON lines gather in memory until this many bytes wait, then go out in one write. */
export const LOG_BUFFER_BYTES = 4096
/** The longest a line waits in the buffer when fewer bytes come: a quiet service's lines too. */
export const LOG_FLUSH_INTERVAL_MS = 100
// A bound for a flush that never reports back, not a limit on a slow reader.
const EXIT_FLUSH_TIMEOUT_MS = 10_000

// Wherever a request's headers, or a credential by a usual name, might end up in a log line:
// pino matches paths exactly, and header names come in either case.
const CREDENTIALS = ['authorization', 'Authorization', 'apiKey', 'apiKeys', 'key', 'API_KEYS']
const REDACTED = CREDENTIALS.flatMap((name) => [
  name,
  `*.${name}`,
  `*.headers.${name}`,
  `*.*.headers.${name}`,
])

// pino's own test for an environment that captures stdout by replacing its write (as AWS Lambda
// does): there, lines must go through process.stdout, not straight to fd 1.
const stdoutIsReplaced = () =>
  process.stdout.write !== (process.stdout.constructor.prototype as NodeJS.WriteStream).write

// The ids of the span a line is logged under, when it records (inside a sampled request's context.with,
// synchronously: see tracing/start-tracing.ts): a log search finds its trace. A fresh object each
// time: pino merges the line's own fields into it.
const activeTraceIds = (): object => {
  const span = trace.getActiveSpan()
  if (span === undefined || !span.isRecording()) return {}
  const { traceId, spanId } = span.spanContext()
  return { traceId, spanId }
}

/**
 * The service's logger: JSON lines, or readable ones in development; credentials are redacted wherever a
 * request's headers might be logged; with tracing, the active span's ids in each line. JSON goes to stdout
 * through LineBuffer: exit with `exitAfterFlush`.
 */
export const createLogger = (
  config: Pick<AppConfig, 'logLevel' | 'logFormat'> & Partial<Pick<AppConfig, 'tracing' | 'webConcurrency'>>,
  destination?: DestinationStream,
): Logger => {
  const options = {
    level: config.logLevel,
    // The pid tells the workers of WEB_CONCURRENCY apart.
    base: { service: 'animal-store', pid: process.pid },
    redact: { paths: REDACTED, censor: '[redacted]' },
    ...(config.tracing === undefined ? {} : { mixin: activeTraceIds }),
  }
  if (config.logFormat === 'pretty') {
    // Loaded here only: a process that logs JSON never loads pino-pretty and its dependencies.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty
    return pino(
      options,
      pretty({
        sync: true,
        colorize: destination === undefined && process.stdout.isTTY === true,
        ...(destination === undefined ? {} : { destination }),
      }),
    )
  }
  if (destination !== undefined) return pino(options, destination)
  // This makes process.stdout, before the LineBuffer: node then leaves a pipe or socket it opens for it
  // O_NONBLOCK, which LineBuffer reads to write at once (line-chunks.ts). Guards: node's part in
  // test/private-api-guards.test.ts, this order in test/logger-stdout-order.test.ts.
  if (stdoutIsReplaced()) return pino(options, process.stdout)
  const writeBytes = logWriteBytes(1, config.webConcurrency ?? 1)
  // The line of lines dropped for a reader that stopped has the base fields of every other line.
  const droppedLine = droppedLinesLine(JSON.stringify(options.base).slice(1, -1))
  const buffer = new LineBuffer(1, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS, undefined, writeBytes, {
    droppedLine,
  })
  return pino(options, buffer)
}

/** The events after which flushLogs looks again: a write done, or a file opened at last. */
type Wake = 'drain' | 'ready'
/** What flushLogs needs of the asynchronous destination (LineBuffer; sonic-boom 4 has the same). */
type BufferedDestination = {
  readonly destroyed: boolean
  /** True while a write of the buffer is under way. */
  readonly _writing: boolean
  flushSync(): void
  /** Drops what waits, saying so: the exit will not wait any longer (LineBuffer's; sonic-boom has none). */
  abandon?(reason: string): void
  once(event: Wake | 'close' | 'error', listener: () => void): BufferedDestination
  off(event: Wake | 'close' | 'error', listener: () => void): BufferedDestination
}

const isBuffered = (stream: unknown): stream is BufferedDestination =>
  typeof stream === 'object' &&
  stream !== null &&
  typeof (stream as Partial<BufferedDestination>)._writing === 'boolean' &&
  typeof (stream as Partial<BufferedDestination>).flushSync === 'function'

// The logger's destination when it is an asynchronous one (pino's private streamSym).
const bufferedStreamOf = (logger: Logger): BufferedDestination | undefined => {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym]
  return isBuffered(stream) ? stream : undefined
}

/**
 * Resolves once every line logged so far is written: a write under way is waited for ('drain'), then the rest
 * written synchronously (flushSync during a write would reorder lines; `logger.flush` fails on a pipe). Reads
 * pino's private `streamSym` and the destination's `_writing`: guarded in test/private-api-guards.test.ts.
 */
export const flushLogs = (logger: Logger): Promise<void> =>
  new Promise((resolve) => {
    const stream = bufferedStreamOf(logger)
    if (stream === undefined) return resolve()
    const settle = () => {
      if (stream.destroyed) return resolve()
      if (!stream._writing) {
        try {
          stream.flushSync()
        } catch {
          // Nowhere left to say it: stdout is gone.
        }
        return resolve()
      }
      // 'drain': the write is done; 'ready': a file destination, writing while it opens, is open at last.
      const again = () => {
        stream.off('drain', again).off('ready', again).off('error', over).off('close', over)
        settle()
      }
      // A failed write (pino stops writing after EPIPE), or the stream closed: nothing more to do.
      const over = () => {
        stream.off('drain', again).off('ready', again).off('error', over).off('close', over)
        resolve()
      }
      stream.once('drain', again).once('ready', again).once('error', over).once('close', over)
    }
    settle()
  })

/**
 * Ends the process with `code` once the log is written (flushLogs); every path that ends the process goes
 * through here. A reader that reads nothing for 10 s is given up (here, and in LineBuffer's flushSync).
 */
export const exitAfterFlush = (logger: Logger, code: number): void => {
  setTimeout(() => {
    // A write still under way: its reader took nothing for all that time, and the exit writes no more after it.
    const stream = bufferedStreamOf(logger)
    if (stream?._writing === true)
      stream.abandon?.(`its reader took nothing for ${EXIT_FLUSH_TIMEOUT_MS / 1000} s at exit`)
    process.exit(code)
  }, EXIT_FLUSH_TIMEOUT_MS)
  void flushLogs(logger).then(() => process.exit(code))
}

let exiting = false
/** An error nothing caught leaves the process in an unknown state: logged at fatal, flushed, exit 1. */
export const exitOnUncaughtErrors = (logger: Logger): void => {
  const fatal = (fields: Record<string, unknown>, message: string) => {
    logger.fatal(fields, message)
    if (exiting) return
    exiting = true
    exitAfterFlush(logger, 1)
  }
  process.on('uncaughtException', (error) => fatal({ err: error }, 'stopped on an uncaught error'))
  process.on('unhandledRejection', (reason) =>
    fatal({ err: reason }, 'stopped on an unhandled promise rejection'),
  )
}

/**
 * The logger the HTTP adapter writes through. Request lines hold only the adapter's fields (never a header's
 * value), so they skip the wildcard redaction, and on the service's own destination request-line.ts writes
 * them (ARCHITECTURE.md, 'Made by hand, on purpose', row "request line"); errors keep every redaction.
 */
export const httpLoggerOf = (logger: Logger): HttpLogger => {
  const requestLines = logger.child({}, { redact: { paths: CREDENTIALS, censor: '[redacted]' } })
  const request = requestLineWriter(logger)
  return {
    info: (fields, message) => requestLines.info(fields, message),
    ...(request === undefined ? {} : { request }),
    error: (fields, message) => logger.error(fields, message),
    isLevelEnabled: (level) => logger.isLevelEnabled(level),
  }
}
