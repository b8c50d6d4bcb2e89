import type { HttpLogger } from '@pets/adapters-http'
import { createRequire } from 'node:module'
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import type PinoPretty from 'pino-pretty'
import type { AppConfig } from './config.js'
import { LineBuffer } from './line-buffer.js'
import { requestLineWriter } from './request-line.js'

/** The service's logger: a pino logger. */
export type Logger = PinoLogger

/** JSON lines gather in memory until this many bytes wait, then go out in one write. */
export const LOG_BUFFER_BYTES = 4096
/** The longest a line waits in the buffer when fewer bytes come: a quiet service's lines too. */
export const LOG_FLUSH_INTERVAL_MS = 100
/**
 * How long an exit waits for the log to be written before it exits anyway: a bound in case a flush
 * never reports back, not a limit on a slow reader (pino's exit handler still waits for it).
 */
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

/**
 * The service's logger: JSON lines, or readable lines for a person in development. Credentials
 * are redacted wherever a request's headers might be logged. A line below the level costs a call
 * of an empty function: pino replaces the methods of disabled levels.
 *
 * Without a `destination`, JSON lines go to stdout through pino's asynchronous destination
 * (LineBuffer, line-buffer.ts): buffered up to LOG_BUFFER_BYTES, written without blocking, and written at the
 * latest LOG_FLUSH_INTERVAL_MS after they were logged. Whatever ends the process must flush them
 * first: `exitAfterFlush`. pino-pretty is loaded only when the pretty format is used.
 */
export const createLogger = (
  config: Pick<AppConfig, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream,
): Logger => {
  const options = {
    level: config.logLevel,
    // The pid tells the workers of WEB_CONCURRENCY apart.
    base: { service: 'animal-store', pid: process.pid },
    redact: { paths: REDACTED, censor: '[redacted]' },
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
  if (stdoutIsReplaced()) return pino(options, process.stdout)
  return pino(options, new LineBuffer(1, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS))
}

/** The events after which flushLogs looks again: a write done, or a file opened at last. */
type Wake = 'drain' | 'ready'
/** What flushLogs needs of the asynchronous destination (LineBuffer; sonic-boom 4 has the same). */
type BufferedDestination = {
  readonly destroyed: boolean
  /** True while a write of the buffer is under way. */
  readonly _writing: boolean
  flushSync(): void
  once(event: Wake | 'close' | 'error', listener: () => void): BufferedDestination
  off(event: Wake | 'close' | 'error', listener: () => void): BufferedDestination
}

const isBuffered = (stream: unknown): stream is BufferedDestination =>
  typeof stream === 'object' &&
  stream !== null &&
  typeof (stream as Partial<BufferedDestination>)._writing === 'boolean' &&
  typeof (stream as Partial<BufferedDestination>).flushSync === 'function'

/**
 * Resolves once every line logged so far is written. A write under way is waited for ('drain'),
 * then the rest is written synchronously: calling flushSync during an asynchronous
 * write would put lines out of order, and an exit right after it could lose the write under way.
 * (logger.flush(cb) is no help: on a pipe, its fsync fails, and it may call back with bytes still
 * in the buffer.) flushSync waits out EAGAIN from a full pipe.
 */
export const flushLogs = (logger: Logger): Promise<void> =>
  new Promise((resolve) => {
    const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym]
    if (!isBuffered(stream)) return resolve()
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
      // The write is done ('drain'), or the file is open at last ('ready': a file destination
      // counts as writing while it opens).
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
 * Ends the process with `code` once the log is written (flushLogs): every path that ends the
 * process goes through here. A reader of stdout that is slow delays the exit; one that never reads
 * again holds it until a SIGKILL, as it would any pino process (flushSync waits out EAGAIN).
 */
export const exitAfterFlush = (logger: Logger, code: number): void => {
  setTimeout(() => process.exit(code), EXIT_FLUSH_TIMEOUT_MS)
  void flushLogs(logger).then(() => process.exit(code))
}

let exiting = false
/**
 * An error nothing caught (a throw in a callback, a rejected promise nobody awaited) leaves the
 * process in an unknown state: it is logged at fatal, the log is flushed, and the process exits 1.
 */
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
 * The logger the HTTP adapter writes through. Its request lines hold only fields the adapter
 * sets (never a header's value), so they skip the wildcard paths, which cost pino about ten times
 * the line itself (bench/RESULTS.md), and on the service's own destination they are written by
 * request-line.ts; errors, whose objects may hold anything, keep every redaction.
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
