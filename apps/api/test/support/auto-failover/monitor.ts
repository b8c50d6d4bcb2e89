import { join } from 'node:path'
import { startAutoctl, type AutoctlProcess } from './autoctl-process.js'
import { queryOnce, urlOf } from './node-sql.js'
import { waitUntil } from './wait-until.js'

/** What the monitor knows of one data node (its pgautofailover.node row). */
export type NodeState = {
  readonly name: string
  readonly port: number
  readonly reported: string
  readonly goal: string
  readonly health: number
}

/** The pg_auto_failover monitor: where data nodes register, and what it says of them. */
export type Monitor = AutoctlProcess & {
  /** What data nodes and pg_autoctl commands are given: the autoctl_node user on pg_auto_failover. */
  readonly url: string
  readonly states: () => Promise<Array<NodeState>>
  /** The monitor's event log (pgautofailover.event) from `since` (Date.now()) on, in order. */
  readonly events: (since: number) => Promise<Array<MonitorEvent>>
}

/** One row of the monitor's event log: what a node reported, or the goal the monitor gave it, and when. */
export type MonitorEvent = {
  /** When the monitor logged it (Date.now()'s clock: the monitor runs on this machine). */
  readonly at: number
  readonly node: string
  readonly reported: string
  readonly goal: string
  /** The replication state the node reported (`quorum`, `async`, `unknown`). */
  readonly rep: string
  readonly lsn: string
  readonly description: string
}

/** The events as lines, times in ms from `since`: for the message of a failing test. */
export const eventLines = (events: ReadonlyArray<MonitorEvent>, since: number): Array<string> =>
  events.map(
    (e) => `+${e.at - since} ms ${e.node} ${e.reported}→${e.goal} (${e.rep}, ${e.lsn}): ${e.description}`,
  )

// The production defaults take 20 s to call a silent node unhealthy (10 s after the monitor starts),
// then 30 s more for a primary to demote itself before its standby takes writes. Shortened (1 s
// each) so that a killed primary is replaced within 2 to 3 s; a live node is called unhealthy only
// if its health check fails too, twice, after 1 s each. A short demote timeout is only safe because
// the primaries these tests lose are dead: a live one cut off from the monitor demotes itself after
// 20 s (pg_autoctl's network_partition_timeout), and would meanwhile still take writes.
const QUICK_DECISIONS: Record<string, number> = {
  'pgautofailover.health_check_period': 1_000,
  'pgautofailover.health_check_timeout': 1_000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 200,
  'pgautofailover.node_considered_unhealthy_timeout': 1_000,
  'pgautofailover.startup_grace_period': 1_000,
  'pgautofailover.primary_demote_timeout': 1_000,
}

/** Starts a monitor in `dir`/monitor on `port`, ready for data nodes, deciding within seconds. */
export const startMonitor = async (dir: string, port: number, env: NodeJS.ProcessEnv): Promise<Monitor> => {
  const pgdata = join(dir, 'monitor')
  const args = ['create', 'monitor', '--pgdata', pgdata, '--pgport', String(port)]
  const autoctl = startAutoctl(
    [...args, '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run'],
    env,
    pgdata,
  )
  const url = `postgres://autoctl_node@127.0.0.1:${port}/pg_auto_failover?sslmode=disable`
  const admin = urlOf({ host: '127.0.0.1', port }, 'pg_auto_failover')
  // Ready once its own user gets in: pg_autoctl adds that HBA rule last.
  await waitUntil(
    `the monitor answers on port ${port}`,
    async () => {
      if (!autoctl.running()) throw new Error(`pg_autoctl create monitor ended:\n${autoctl.output()}`)
      return queryOnce(url, 'SELECT 1 FROM pgautofailover.formation').then(
        () => true,
        () => false,
      )
    },
    30_000,
  )
  for (const [name, value] of Object.entries(QUICK_DECISIONS))
    await queryOnce(admin, `ALTER SYSTEM SET ${name} = ${value}`)
  await queryOnce(admin, 'SELECT pg_reload_conf()')
  return {
    ...autoctl,
    url,
    states: () =>
      queryOnce<NodeState>(
        admin,
        `SELECT nodename AS name, nodeport AS port, reportedstate::text AS reported,
                goalstate::text AS goal, health FROM pgautofailover.node ORDER BY nodeid`,
      ),
    events: async (since) => {
      const rows = await queryOnce<Record<string, string>>(
        admin,
        `SELECT (extract(epoch FROM eventtime) * 1000)::int8::text AS at, nodename AS node,
                reportedstate::text AS reported, goalstate::text AS goal, reportedrepstate AS rep,
                reportedlsn::text AS lsn, description
           FROM pgautofailover.event WHERE eventtime >= to_timestamp($1::float8 / 1000) ORDER BY eventid`,
        [since],
      )
      return rows.map((e) => ({
        at: Number(e['at']),
        node: e['node']!,
        reported: e['reported']!,
        goal: e['goal']!,
        rep: e['rep']!,
        lsn: e['lsn']!,
        description: e['description']!,
      }))
    },
  }
}
