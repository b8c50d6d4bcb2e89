import { pino, type Logger as PinoLogger } from 'pino'
import pretty from 'pino-pretty'
import type { AppConfig } from './config.js'

export type Logger = PinoLogger

/**
 * The service's logger: JSON lines, or readable lines for a person in development. Credentials
 * are redacted wherever a request's headers might be logged.
 */
export const createLogger = (config: Pick<AppConfig, 'logLevel' | 'logFormat'>): Logger => {
  const options = {
    level: config.logLevel,
    base: { service: 'animal-store' },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.authorization',
        'apiKey',
        'key',
      ],
      censor: '[redacted]',
    },
  }
  return config.logFormat === 'pretty'
    ? pino(options, pretty({ sync: true, colorize: process.stdout.isTTY === true }))
    : pino(options)
}
