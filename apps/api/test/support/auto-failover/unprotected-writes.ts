import type { Sample } from './failover-load.js'
import type { MonitorEvent } from './monitor.js'

/**
 * When the old primary took writes without synchronous replication during a failover (Date.now() times),
 * as the monitor's event log shows it.
 *
 * pg_auto_failover 2.0 can, in a switchover, give the old primary the goal `wait_primary` ("none of the
 * standby nodes in the quorum are healthy at the moment": its standby is in `prepare_promotion`) just
 * after `draining`. Its keeper then drops synchronous_standby_names (fsm_disable_sync_rep) and, until it
 * stops PostgreSQL (`draining`, `demote_timeout`, `demoted`) or goes back to `primary`, acknowledges
 * commits that the standby being promoted never receives: the database itself loses them. Seen in CI
 * (the monitor's log: goal `wait_primary` 15 ms after `draining`, reported 130 ms later, demoted 1.5 s
 * after; 19 pets answered 201 in between, gone). From the goal on, since the keeper can act on it before
 * it reports.
 */
export type Unprotected = { readonly from: number; readonly until: number }

// PostgreSQL stopped by the keeper. An event that gives a node a goal shows the state it reported last,
// perhaps `primary` from before the race: only a `primary` reported after `wait_primary` says it is back.
const STOPPED = new Set(['draining', 'demote_timeout', 'demoted'])

/** The window in which `node`, the primary before the failover, ran without a synchronous standby. */
export const unprotectedWindow = (
  events: ReadonlyArray<MonitorEvent>,
  node: string,
  after: number,
): Unprotected | undefined => {
  const start = events.find((e) => e.node === node && e.at >= after && e.goal === 'wait_primary')
  if (start === undefined) return undefined
  let waiting = false
  const end = events.find((e) => {
    if (e.node !== node || e.at < start.at) return false
    if (e.reported === 'wait_primary') waiting = true
    return STOPPED.has(e.reported) || (waiting && e.reported === 'primary')
  })
  return { from: start.at, until: end?.at ?? Number.POSITIVE_INFINITY }
}

/** Whether a 201 could have come from a commit that the old primary acknowledged in `window`. */
export const answeredWhileUnprotected =
  (window: Unprotected | undefined) =>
  (s: Sample): boolean =>
    window !== undefined && s.status === 201 && s.endedAt! >= window.from && s.startedAt <= window.until
