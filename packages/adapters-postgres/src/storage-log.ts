import type { OnUnavailable } from './runner/index.js'

/** A line for the host's log: its level, its message, and fields. */
export type StorageLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Readonly<Record<string, unknown>>,
) => void

// The calls the service makes by itself, for no request: their callers keep what they hold and try again later
// (usage counts, the removal of expired Idempotency-Key records), so no 503 stands for them.
const BACKGROUND: ReadonlySet<string> = new Set(['usageLog.add', 'creations.removeExpired'])
const REQUEST_UNAVAILABLE = 'PostgreSQL cannot serve this call now: answered 503 unavailable'
const BACKGROUND_UNAVAILABLE = 'PostgreSQL cannot serve this call now: background work, tried again later'

/** Logs each call answered StoreUnavailable once at `warn`: a request's as the 503 it answered, background work's as tried again later. */
export const logUnavailable =
  (log: StorageLog): OnUnavailable =>
  ({ operation, sqlstate, retried, error }) =>
    log('warn', BACKGROUND.has(operation) ? BACKGROUND_UNAVAILABLE : REQUEST_UNAVAILABLE, {
      operation,
      sqlstate: sqlstate ?? null,
      retried,
      err: error,
    })
