import { sqlstateOf, type OnServed, type OnUnavailable } from './runner/index.js'

/** A line for the host's log: its level, its message, and fields. */
export type StorageLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Readonly<Record<string, unknown>>,
) => void

/** What went wrong, for a line about an outage: the code (a SQLSTATE, else the system's) and the message, no stack. */
export type OutageCause = { readonly code: string | null; readonly cause: string }

type ErrorFields = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }

// A system error's code (ECONNREFUSED) on the error, its cause or an AggregateError's first error.
const systemCodeOf = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== 'object' || error === null || depth > 8) return undefined
  const { code, cause, errors } = error as ErrorFields
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  return (
    systemCodeOf(cause, depth + 1) ?? (Array.isArray(errors) ? systemCodeOf(errors[0], depth + 1) : undefined)
  )
}

// The message, or an AggregateError's (node's connect to every address of a host) first error's.
const messageOf = (error: unknown, depth = 0): string => {
  if (typeof error !== 'object' || error === null || depth > 8) return String(error)
  const { message, errors } = error as ErrorFields
  if (typeof message === 'string' && message !== '') return message
  if (Array.isArray(errors) && errors.length > 0) return messageOf(errors[0], depth + 1)
  return String(error)
}

/**
 * An expected failure of PostgreSQL as a line's fields: `code` and `cause`. Never the stack: an outage is no
 * bug, and its trace (pg's parser, node's connect) says nothing an operator can act on.
 */
export const outageCause = (error: unknown): OutageCause => ({
  code: sqlstateOf(error) ?? systemCodeOf(error) ?? null,
  cause: messageOf(error),
})

const FAILING =
  'PostgreSQL cannot serve calls: each is answered 503 unavailable (background work is tried again later) until it can'
const STILL_FAILING = 'PostgreSQL still cannot serve calls'
const SERVING = 'PostgreSQL serves calls again'
// The codes (and calls) a line counts by; past this many, the rest as `other` (an outage has a handful).
const MOST_CODES = 16

/** When the outage lines are written. */
export type OutageLinesOptions = {
  /** A monotonic clock in ms; `performance.now` unless given. */
  readonly now?: () => number
  /** How long no call may fail before a served one ends the outage; 1000 ms unless given. */
  readonly quietMs?: number
  /** How often at most a line says that calls still fail; 60 000 ms unless given. */
  readonly remindEveryMs?: number
}

/**
 * The lines of an outage: calls that PostgreSQL cannot serve (each a request's 503, or background work tried again
 * later) are one event, not a line each: the first failure after calls were served says so at `warn`, with its call
 * and cause; while failures go on, one `warn` line a minute at most counts them; the first call served once none
 * failed for `quietMs` says at `info` that it serves again, with how long and how many failed, by code and by call
 * (`operations`: `pets.add`, `apiKeys.lastUsed`…). A request's
 * own line carries its call and cause (the StoreUnavailable's `details`, adapters-http).
 */
export const outageLines = (
  log: StorageLog,
  options: OutageLinesOptions = {},
): { readonly onUnavailable: OnUnavailable; readonly onServed: OnServed } => {
  const now = options.now ?? (() => performance.now())
  const quietMs = options.quietMs ?? 1000
  const remindEveryMs = options.remindEveryMs ?? 60_000
  // Set while calls fail: since when, the last failure, and the counts of the outage and since its last line.
  let outage:
    | {
        readonly since: number
        lastFailureAt: number
        lastLineAt: number
        failed: number
        failedSinceLine: number
        servedSinceLine: number
        readonly codes: Map<string, number>
        readonly operations: Map<string, number>
      }
    | undefined
  const count = (counts: Map<string, number>, key: string) => {
    const counted = counts.has(key) || counts.size < MOST_CODES ? key : 'other'
    counts.set(counted, (counts.get(counted) ?? 0) + 1)
  }
  return {
    onUnavailable: ({ operation, error }) => {
      const at = now()
      const { code, cause } = outageCause(error)
      if (outage === undefined) {
        outage = {
          since: at,
          lastFailureAt: at,
          lastLineAt: at,
          failed: 1,
          failedSinceLine: 0,
          servedSinceLine: 0,
          codes: new Map([[code ?? 'none', 1]]),
          operations: new Map([[operation, 1]]),
        }
        return log('warn', FAILING, { operation, code, cause })
      }
      outage.lastFailureAt = at
      outage.failed++
      outage.failedSinceLine++
      count(outage.codes, code ?? 'none')
      count(outage.operations, operation)
      if (at - outage.lastLineAt < remindEveryMs) return
      log('warn', STILL_FAILING, {
        forMs: Math.round(at - outage.since),
        failed: outage.failedSinceLine,
        served: outage.servedSinceLine,
        last: { operation, code, cause },
      })
      outage.lastLineAt = at
      outage.failedSinceLine = 0
      outage.servedSinceLine = 0
    },
    // On every call served: one comparison while nothing fails.
    onServed: () => {
      if (outage === undefined) return
      const at = now()
      if (at - outage.lastFailureAt < quietMs) return void outage.servedSinceLine++
      log('info', SERVING, {
        failingForMs: Math.round(outage.lastFailureAt - outage.since),
        failed: outage.failed,
        codes: Object.fromEntries(outage.codes),
        operations: Object.fromEntries(outage.operations),
      })
      outage = undefined
    },
  }
}
