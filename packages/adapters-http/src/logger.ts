import type { ObservedRequest } from './operations-endpoints.js'

/** What the HTTP adapter logs through: pino's loggers fit, as does any object with these methods. */
export interface HttpLogger {
  readonly info: (fields: object, message: string) => void
  /** When given, writes an answered request's line (at info) instead of `info(request, 'request')`. */
  readonly request?: ((request: ObservedRequest) => void) | undefined
  readonly error: (fields: object, message: string) => void
  /** When given and false for a level, the adapter does not even build that level's lines. */
  readonly isLevelEnabled?: ((level: 'info' | 'error') => boolean) | undefined
}

/** A logger that drops everything. */
export const silentLogger: HttpLogger = {
  info: () => {},
  error: () => {},
  isLevelEnabled: () => false,
}
