import type pg from 'pg'
import type { ConnectionTargets, HostPort, TargetSessionAttrs } from './connection-targets.js'
import { formatHostPort } from './describe-targets.js'

/** The session one pass of the walk looks for. */
export type Wanted = Exclude<TargetSessionAttrs, 'prefer-standby'>
/** One host to try, with what it must be and the time it may take. */
export type Attempt = {
  readonly host: HostPort
  readonly wanted: Wanted
  readonly budgetMs?: number
  readonly last: boolean
}
/** A connection, or why not and whether the walk ends there. */
export type Outcome<T> =
  { readonly value: T } | { readonly reason: string; readonly final: boolean; readonly error: unknown }
/** Tries one host. */
export type Open<T> = (attempt: Attempt) => Promise<Outcome<T>>

const HEADLINES = {
  ...{ any: 'no host accepted the connection', 'prefer-standby': 'no host accepted the connection' },
  ...{ 'read-write': 'no host accepted writes', 'read-only': 'no host gave a read-only session' },
  ...{ primary: 'no host is a primary', standby: 'no host is a standby' },
} satisfies Record<TargetSessionAttrs, string>

/**
 * libpq's walk: hosts in order (shuffled for load_balance_hosts=random), each within connect_timeout; for
 * prefer-standby, a second pass takes any host. An error from the server itself (a wrong password, an unknown
 * database) ends it, as in libpq, but 57P03 (starting up, shutting down) moves on to the next host.
 */
export const walk = async <T>(
  targets: ConnectionTargets,
  config: pg.ClientConfig,
  open: Open<T>,
): Promise<T> => {
  const started = Date.now()
  const overallMs = config.connectionTimeoutMillis || undefined
  const order = targets.loadBalanceHosts === 'random' ? shuffled(targets.hosts) : targets.hosts
  const attrs = targets.targetSessionAttrs
  const passes: ReadonlyArray<Wanted> = attrs === 'prefer-standby' ? ['standby', 'any'] : [attrs]
  const refusals: Array<string> = []
  const errors: Array<unknown> = []
  // One host that could not be reached fails as pg alone would; else every host's error, in one.
  const refused = () =>
    targets.hosts.length === 1 && errors.length === 1 && !(errors[0] instanceof SessionRefused)
      ? errors[0]
      : new AggregateError(errors, `${HEADLINES[attrs]}: ${refusals.join('; ')}`)
  for (const [pass, wanted] of passes.entries()) {
    for (const [index, host] of order.entries()) {
      const overallLeft = left(overallMs, started) ?? Infinity
      if (overallLeft <= 0) refusals.push(`connectionTimeoutMillis (${overallMs} ms) spent`)
      if (overallLeft <= 0) throw refused()
      const budgetMs = Math.min(targets.connectTimeoutMs ?? Infinity, overallLeft)
      const last = pass === passes.length - 1 && index === order.length - 1
      const outcome = await open({ host, wanted, last, ...(Number.isFinite(budgetMs) && { budgetMs }) })
      if ('value' in outcome) return outcome.value
      refusals.push(`${formatHostPort(host)} ${outcome.reason}`)
      errors.push(outcome.error)
      if (outcome.final) throw refused()
    }
  }
  throw refused()
}

/** What is left of `budgetMs` since `since`; undefined for no budget. */
export const left = (budgetMs: number | undefined, since: number) =>
  budgetMs === undefined ? undefined : budgetMs - (Date.now() - since)

const shuffled = <T>(items: ReadonlyArray<T>): Array<T> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}

// A session that does not fit, as the store's errors say it (unavailable.ts): no writes (25006) when writes
// were wanted, else a connection refused (08004). Either is a 503, never a 500.
class SessionRefused extends Error {
  constructor(
    reason: string,
    readonly code: string,
  ) {
    super(reason)
  }
}
export const sessionError = (reason: string, wanted: Wanted) =>
  new SessionRefused(reason, wanted === 'read-write' ? '25006' : '08004')
