import type { FormationNode } from './data-node.js'
import { queryOnce, sqlstateOf, urlOf } from './node-sql.js'

/** Where writes went back, and the span in which no node of the formation took one. */
export type WritableAgain = {
  /** The node that took the first write. */
  readonly node: FormationNode
  /** When it acknowledged that write (Date.now()): the new primary accepts writes from here on. */
  readonly at: number
  /** From when on, at the latest, the previous primary refused writes or could not be reached. */
  readonly noWriterFrom: number
  /** Until when, at least, the new primary still refused them: between the two no node took one. */
  readonly noWriterUntil: number
}

/** The table each probe writes a row to, in the database `postgres` of the formation. */
export const PROBE_TABLE =
  'CREATE TABLE failover_probe (id int8 GENERATED ALWAYS AS IDENTITY, at timestamptz DEFAULT now())'
const PROBE = 'INSERT INTO failover_probe DEFAULT VALUES'
const INTERVAL_MS = 50
// A commit that waits longer for its synchronous standby than this has not been acknowledged.
const PROBE_TIMEOUT_MS = 1_000

// A refusal: read-only (25006), shutting down or starting up (class 57), a broken or refused
// connection (class 08, or none at all), no acknowledgement in time. Anything else (too many
// connections, say) tells nothing of whether the node takes writes.
const outcomeOf = (error: unknown): 'refused' | 'unknown' => {
  const sqlstate = sqlstateOf(error)
  return sqlstate === undefined || sqlstate === '25006' || /^(57|08)/.test(sqlstate) ? 'refused' : 'unknown'
}

/**
 * Writes a row every 50 ms on each node, on a new connection each time, until a node other than
 * `previous` acknowledges one. Every probe is a real INSERT: a promoted standby is not in recovery
 * some time before it takes writes (pg_autoctl keeps it default_transaction_read_only meanwhile).
 */
export const waitForWritable = async (
  nodes: ReadonlyArray<FormationNode>,
  previous: FormationNode,
  timeoutMs: number,
): Promise<WritableAgain> => {
  const started = Date.now()
  let found: WritableAgain | undefined
  let previousRefusedFrom: number | undefined
  const lastRefused = new Map<string, number>()
  const probe = async (node: FormationNode) => {
    while (found === undefined && Date.now() - started < timeoutMs) {
      const startedAt = Date.now()
      const outcome = await queryOnce(urlOf(node, 'postgres'), PROBE, [], PROBE_TIMEOUT_MS).then(
        () => 'ok' as const,
        outcomeOf,
      )
      if (found !== undefined) return
      if (outcome !== 'unknown' && node.name === previous.name)
        previousRefusedFrom = outcome === 'ok' ? undefined : (previousRefusedFrom ?? startedAt)
      else if (outcome === 'refused') lastRefused.set(node.name, startedAt)
      else if (outcome === 'ok') {
        const from = previousRefusedFrom ?? startedAt
        const until = Math.max(from, lastRefused.get(node.name) ?? from)
        found = { node, at: Date.now(), noWriterFrom: from, noWriterUntil: until }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, INTERVAL_MS - (Date.now() - startedAt))))
    }
  }
  await Promise.all(nodes.map(probe))
  if (found === undefined) throw new Error(`no node but ${previous.name} took a write within ${timeoutMs} ms`)
  return found
}
