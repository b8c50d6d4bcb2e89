import { DEFAULT_LOCK_TIMEOUT_MS } from './adapter-options.js'
import { inlineParameters } from './inline-parameters.js'

/** TCP keepalives, on both ends of every connection of the pool. */
export type KeepAliveOptions = {
  /** Idle time before the first probe; 5000 ms unless given (the server counts whole seconds). */
  readonly idleMs?: number | undefined
  /** Time between probes, on the server; 1000 ms unless given. */
  readonly intervalMs?: number | undefined
  /** Unanswered probes before the server drops the connection; 3 unless given. */
  readonly count?: number | undefined
}

/** What the server-side settings are computed from. */
export type SessionSettingsOptions = {
  readonly statementTimeoutMs?: number | undefined
  readonly lockTimeoutMs?: number | undefined
  readonly idleInTransactionTimeoutMs?: number | undefined
  readonly keepAlive?: KeepAliveOptions | undefined
}

export const keepAliveOf = (options: KeepAliveOptions = {}) => ({
  idleMs: options.idleMs ?? 5000,
  intervalMs: options.intervalMs ?? 1000,
  count: options.count ?? 3,
})

/** The settings each session of the pool gets from the server, by name, as `SET` would take them. */
export const sessionSettings = (options: SessionSettingsOptions) => {
  const keepAlive = keepAliveOf(options.keepAlive)
  return {
    statement_timeout: options.statementTimeoutMs ?? 750,
    lock_timeout: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 2000,
    tcp_keepalives_idle: Math.max(1, Math.ceil(keepAlive.idleMs / 1000)),
    tcp_keepalives_interval: Math.max(1, Math.ceil(keepAlive.intervalMs / 1000)),
    tcp_keepalives_count: keepAlive.count,
    // Data the server sent that stays unacknowledged this long ends the connection too.
    tcp_user_timeout: keepAlive.idleMs + keepAlive.intervalMs * keepAlive.count,
  }
}

/** The settings as the startup parameter `options` carries them: `-c name=value …`. */
export const startupOptions = (settings: Readonly<Record<string, number>>): string =>
  Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ')

// pg lets a connection string's own parameters win over the configuration, so `options` given in
// DATABASE_URL would replace ours: it is taken out and appended after ours (a later -c wins).
export const withOptions = (connectionString: string, ours: string | undefined) => {
  let theirs: string | null = null
  let rest = connectionString
  try {
    const url = new URL(connectionString)
    theirs = url.searchParams.get('options')
    if (theirs !== null) {
      url.searchParams.delete('options')
      rest = url.toString()
    }
  } catch {
    // not a URL (a key=value string): pg reads it as it is
  }
  const options = [ours, theirs].filter((o) => o !== undefined && o !== null && o !== '').join(' ')
  return { connectionString: rest, ...(options === '' ? {} : { options }) }
}

/** The settings a transaction pooler cannot keep for a session, set for one transaction instead. */
export const PER_TRANSACTION = [
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
] as const

/**
 * Sets `PER_TRANSACTION` for the current transaction only (`set_config(…, true)`), in front of each
 * statement behind a pooler: PostgreSQL 13+ arms the statement timeout afresh for each one of a message.
 */
export const perTransactionSettings = (settings: Readonly<Record<string, number>>): string =>
  `SELECT ${PER_TRANSACTION.map((name) => `set_config('${name}', '${settings[name] ?? 0}', true)`).join(', ')}`

// A transaction's own statements go as they are: the statements inside it get the settings.
const TRANSACTION_CONTROL =
  /^\s*(begin|start\s+transaction|commit|end|rollback|abort|savepoint|release|prepare\s+transaction)\b/i

/** The one message that runs `text` with `values` after `settings`: undefined for a transaction's own statements. */
export const withSettingsFirst = (
  settings: string,
  text: string,
  values: ReadonlyArray<unknown>,
): string | undefined =>
  TRANSACTION_CONTROL.test(text) ? undefined : `${settings}; ${inlineParameters(text, values)}`
