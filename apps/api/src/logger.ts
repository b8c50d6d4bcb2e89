import type { HttpLogger } from '@pets/adapters-http'
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import pretty from 'pino-pretty'
import type { AppConfig } from './config.js'

/** The service's logger: a pino logger. */
export type Logger = PinoLogger

// Wherever a request's headers, or a credential by a usual name, might end up in a log line:
// pino matches paths exactly, and header names come in either case.
const CREDENTIALS = ['authorization', 'Authorization', 'apiKey', 'apiKeys', 'key', 'API_KEYS']
const REDACTED = CREDENTIALS.flatMap((name) => [
  name,
  `*.${name}`,
  `*.headers.${name}`,
  `*.*.headers.${name}`,
])

/**
 * The service's logger: JSON lines, or readable lines for a person in development. Credentials
 * are redacted wherever a request's headers might be logged. A line below the level costs a call
 * of an empty function: pino replaces the methods of disabled levels.
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
  if (config.logFormat === 'pretty')
    return pino(
      options,
      pretty({
        sync: true,
        colorize: destination === undefined && process.stdout.isTTY === true,
        ...(destination === undefined ? {} : { destination }),
      }),
    )
  return destination === undefined ? pino(options) : pino(options, destination)
}

/**
 * The logger the HTTP adapter writes through. Its request lines hold only fields the adapter
 * sets (never a header's value), so they skip the wildcard paths, which cost pino about ten times
 * the line itself (bench/RESULTS.md); errors, whose objects may hold anything, keep them all.
 */
export const httpLoggerOf = (logger: Logger): HttpLogger => {
  const requestLines = logger.child({}, { redact: { paths: CREDENTIALS, censor: '[redacted]' } })
  return {
    info: (fields, message) => requestLines.info(fields, message),
    error: (fields, message) => logger.error(fields, message),
    isLevelEnabled: (level) => logger.isLevelEnabled(level),
  }
}
