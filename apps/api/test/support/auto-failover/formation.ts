import { rmSync } from 'node:fs'
import { assertInstalled, autoctlEnvironment, makeFormationDir } from './autoctl-setup.js'
import { bringUp, hasSynchronousStandby, processesOf, type Started } from './bring-up.js'
import { restartDataNode, type DataNode, type FormationNode } from './data-node.js'
import type { MonitorEvent, NodeState } from './monitor.js'
import { acceptsWrites } from './node-sql.js'
import { runAsPostgres } from './processes.js'
import { waitUntil } from './wait-until.js'
import { waitForWritable, type WritableAgain } from './write-probe.js'

export type { FormationNode } from './data-node.js'
export type { MonitorEvent, NodeState } from './monitor.js'
export type { WritableAgain } from './write-probe.js'

/**
 * A pg_auto_failover formation on this machine: a monitor and two data nodes, on free ports of
 * 127.0.0.1, every file in a temporary directory. Replication is pg_autoctl's default for two nodes
 * (number_sync_standbys 0, both nodes in the replication quorum): synchronous_commit = on and
 * synchronous_standby_names = 'ANY 1 (pgautofailover_standby_N)' while the standby is healthy, so
 * a commit is acknowledged, and a 201 answered, only once the standby has flushed it to its WAL:
 * promoted, the standby has it. While no healthy standby is there (wait_primary: after a failover,
 * until the old node rejoins) the primary drops synchronous_standby_names, so writes go on unprotected.
 */
export type Formation = {
  readonly dir: string
  /** The monitor, as pg_autoctl commands reach it. */
  readonly monitorUrl: string
  readonly nodes: ReadonlyArray<FormationNode>
  /** Both nodes in one URL, for the server that takes writes: `…/app?target_session_attrs=read-write`. */
  readonly multiHostUrl: string
  /** The monitor's view of each data node. */
  readonly states: () => Promise<Array<NodeState>>
  /** The monitor's event log from `since` (Date.now()) on. */
  readonly events: (since: number) => Promise<Array<MonitorEvent>>
  /**
   * Waits for a standby still coming up (standbyInBackground), starts pg_autoctl again for a node whose
   * pg_autoctl ended (a killed primary), then waits until the primary has a synchronous standby.
   */
  readonly heal: (timeoutMs?: number) => Promise<void>
  /** The node the monitor has as primary, once exactly one has (30 s at most). */
  readonly primary: () => Promise<FormationNode>
  /** The node that takes writes now, asked of the nodes themselves (as HAProxy's check would); none: undefined. */
  readonly writableNode: () => Promise<FormationNode | undefined>
  /** `pg_autoctl perform switchover`: resolves once the monitor has the other node as primary. */
  readonly performSwitchover: () => Promise<void>
  /** SIGKILLs the primary's postmaster and its pg_autoctl, which would otherwise restart it and stay primary. */
  readonly killPrimary: () => Promise<FormationNode>
  /** Resolves once another node than `previous` acknowledged a write (WritableAgain). */
  readonly waitForNewPrimaryWritable: (previous: FormationNode, timeoutMs?: number) => Promise<WritableAgain>
  /** What every pg_autoctl printed: for the message of a failing test. */
  readonly output: () => string
  /** Ends every process of the formation and removes its directory; calling it again does nothing more. */
  readonly stop: () => Promise<void>
}

const PRIMARY_STATES = ['single', 'wait_primary', 'primary']
const publicNode = ({ name, host, port, url }: DataNode): FormationNode => ({ name, host, port, url })

/** How startFormation returns. */
export type FormationOptions = {
  /**
   * Return once the primary takes writes, its standby still coming up (heal waits for it and reports a
   * failure), so that services can start meanwhile. By default, once the primary has a synchronous standby.
   */
  readonly standbyInBackground?: boolean
}

/** Starts a formation and waits until it has a primary and a synchronous standby; throws, saying why, if not. */
export const startFormation = async (o: FormationOptions = {}): Promise<Formation> => {
  assertInstalled()
  const dir = makeFormationDir()
  const env = autoctlEnvironment(dir)
  const started: Started = { nodes: [] }
  const output = () =>
    [
      ...(started.monitor === undefined ? [] : [['monitor', started.monitor] as const]),
      ...started.nodes.map((n) => [n.name, n.autoctl] as const),
    ]
      .map(([name, p]) => `--- ${name}\n${p.output().slice(-20_000)}`)
      .join('\n')
  // A test process that ends without `stop` leaves no PostgreSQL behind.
  const killNow = () => {
    processesOf(started).forEach((p) => p.killNow())
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', killNow)
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', killNow)
      await Promise.all(processesOf(started).map((p) => p.stop()))
      rmSync(dir, { recursive: true, force: true })
    })())
  const failed = async (error: unknown): Promise<never> => {
    const log = output()
    await stop()
    throw new Error(
      `The pg_auto_failover formation did not come up: ${error instanceof Error ? error.message : String(error)}\n${log}`,
      { cause: error },
    )
  }
  let standby: Promise<void>
  try {
    ;({ standby } = await bringUp(started, dir, env))
    if (o.standbyInBackground !== true) await standby
  } catch (error) {
    return failed(error)
  }
  const cameUp = standby.catch(failed)
  cameUp.catch(() => {}) // heal reports it
  const m = started.monitor!
  const nodes = started.nodes
  const byName = (name: string) => nodes.find((n) => n.name === name)!
  const primary = async () => {
    let found: NodeState | undefined
    await waitUntil(
      'exactly one primary',
      async () => {
        const primaries = (await m.states()).filter(
          (s) => PRIMARY_STATES.includes(s.reported) && s.goal === s.reported,
        )
        found = primaries.length === 1 ? primaries[0] : undefined
        return found !== undefined
      },
      30_000,
    )
    return publicNode(byName(found!.name))
  }
  return {
    dir,
    monitorUrl: m.url,
    nodes: nodes.map(publicNode),
    multiHostUrl: `postgres://postgres@${nodes.map((n) => `${n.host}:${n.port}`).join(',')}/app?target_session_attrs=read-write`,
    states: m.states,
    events: m.events,
    heal: async (timeoutMs = 60_000) => {
      await cameUp
      for (const [i, node] of nodes.entries())
        if (!node.autoctl.running()) nodes[i] = await restartDataNode(node, env)
      await waitUntil(
        'a primary with a synchronous standby',
        // A node in the middle of a change of role may refuse the question: ask again.
        () => hasSynchronousStandby(m, nodes).catch(() => false),
        timeoutMs,
        200,
      )
    },
    primary,
    writableNode: async () => {
      const writable = await Promise.all(nodes.map((n) => acceptsWrites(n)))
      return writable.filter(Boolean).length === 1 ? publicNode(nodes[writable.indexOf(true)]!) : undefined
    },
    performSwitchover: async () => {
      // A refusal at once (the monitor not yet seeing the standby as ready, on a busy machine) is asked again,
      // three times at most; a switchover that began and failed is not.
      for (let attempt = 1; ; attempt++) {
        const askedAt = Date.now()
        try {
          await runAsPostgres(
            'pg_autoctl',
            ['perform', 'switchover', '--monitor', m.url, '--wait', '60'],
            env,
            90_000,
          )
          return
        } catch (error) {
          if (attempt === 3 || Date.now() - askedAt > 10_000) throw error
          await new Promise((resolve) => setTimeout(resolve, 2_000))
        }
      }
    },
    killPrimary: async () => {
      const node = await primary()
      await byName(node.name).autoctl.kill()
      return node
    },
    waitForNewPrimaryWritable: (previous, timeoutMs = 60_000) =>
      waitForWritable(nodes.map(publicNode), previous, timeoutMs),
    output,
    stop,
  }
}
