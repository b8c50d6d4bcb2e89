import { startDataNode, type DataNode } from './data-node.js'
import { startMonitor, type Monitor } from './monitor.js'
import { queryOnce, urlOf } from './node-sql.js'
import { freePort } from './processes.js'
import { waitUntil } from './wait-until.js'
import { PROBE_TABLE } from './write-probe.js'

/** The processes of a formation, filled in as each starts: a start that fails can stop those that did. */
export type Started = { monitor?: Monitor; readonly nodes: Array<DataNode> }

/** Every pg_autoctl started so far. */
export const processesOf = (started: Started) => [
  ...started.nodes.map((n) => n.autoctl),
  ...(started.monitor === undefined ? [] : [started.monitor]),
]

/** Three distinct free ports: the monitor's, then the nodes'. */
const freePorts = async (): Promise<[number, number, number]> => {
  const ports = new Set<number>()
  while (ports.size < 3) ports.add(await freePort())
  return [...ports] as [number, number, number]
}

/**
 * Whether the monitor has a primary and a secondary, both settled in those states, and the primary
 * has a synchronous standby: a failover can then lose no acknowledged write.
 */
export const hasSynchronousStandby = async (
  monitor: Monitor,
  nodes: ReadonlyArray<DataNode>,
): Promise<boolean> => {
  const states = await monitor.states()
  const primary = states.find((s) => s.reported === 'primary' && s.goal === 'primary')
  if (primary === undefined || !states.some((s) => s.reported === 'secondary' && s.goal === 'secondary'))
    return false
  const [row] = await queryOnce<{ n: number }>(
    urlOf(
      nodes.find((n) => n.name === primary.name)!,
      'postgres',
    ),
    "SELECT count(*)::int AS n FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')",
  )
  return (row?.n ?? 0) >= 1
}

/**
 * Starts the monitor, then node1 (the primary, which creates `app`), then node2 (its standby).
 * Resolves once node1 takes writes and node2 is starting, with `standby`: resolves once the primary
 * has a synchronous standby. Either throws when a pg_autoctl ends or time runs out.
 */
export const bringUp = async (
  started: Started,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ readonly standby: Promise<void> }> => {
  const [monitorPort, port1, port2] = await freePorts()
  const alive = () => {
    const dead = processesOf(started).find((p) => !p.running())
    if (dead !== undefined) throw new Error(`pg_autoctl for ${dead.pgdata} ended`)
    return true
  }
  const monitor = (started.monitor = await startMonitor(dir, monitorPort, env))
  const first = startDataNode('node1', dir, port1, monitor.url, env)
  started.nodes.push(first)
  await waitUntil(
    'node1 runs as the only node',
    async () =>
      alive() && (await monitor.states()).some((s) => s.name === 'node1' && s.reported === 'single'),
    30_000,
  )
  // pg_autoctl 2.0 runs pg_basebackup with a spread checkpoint: on an idle primary that took 90 s
  // (the checkpointer paces its writes to end at checkpoint_completion_target of checkpoint_timeout).
  // 0 writes at full speed; the standby's copy inherits the setting from postgresql.auto.conf.
  await queryOnce(urlOf(first, 'postgres'), 'ALTER SYSTEM SET checkpoint_completion_target = 0')
  await queryOnce(urlOf(first, 'postgres'), 'SELECT pg_reload_conf()')
  await queryOnce(urlOf(first, 'postgres'), PROBE_TABLE)
  started.nodes.push(startDataNode('node2', dir, port2, monitor.url, env))
  const standby = waitUntil(
    'a primary with a synchronous standby',
    () => alive() && hasSynchronousStandby(monitor, started.nodes),
    90_000,
    200,
  )
  return { standby }
}
