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
const BACKGROUND_UNAVAILABLE = 'PostgreSQL cannot serve this call now: background work, tried again later'

/**
 * Logs each background call answered StoreUnavailable once at `warn`, as tried again later. A request's call is
 * not logged here: its StoreUnavailable carries the same fields (`details`) to whoever answers the request,
 * which writes the 503's line with the request's id (adapters-http's serveRequests), or no 503 if its client left.
 */
export const logUnavailable =
  (log: StorageLog): OnUnavailable =>
  ({ operation, sqlstate, retried, error }) => {
    if (BACKGROUND.has(operation))
      log('warn', BACKGROUND_UNAVAILABLE, { operation, sqlstate: sqlstate ?? null, retried, err: error })
  }
