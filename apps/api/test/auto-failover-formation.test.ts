import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { startFollowPrimaryProxy } from './support/auto-failover/follow-primary-proxy.js'
import { startFormation, type Formation } from './support/auto-failover/formation.js'
import { queryOnce, sqlstateOf, urlOf } from './support/auto-failover/node-sql.js'
import { processesMentioning } from './support/auto-failover/processes.js'
import { waitUntil } from './support/auto-failover/wait-until.js'

// The harness of the failover tests (issue 29), proved on a real pg_auto_failover formation. It
// never skips: without postgresql-15-auto-failover, startFormation fails saying how to install it.
const ids = async (url: string) =>
  (await queryOnce<{ id: number }>(url, 'SELECT id FROM harness ORDER BY id')).map((r) => r.id)

describe('a pg_auto_failover formation for the tests', () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it(
    'follows a switchover and a killed primary through one proxy, and leaves nothing behind',
    { timeout: 240_000 },
    async () => {
      const timings: Record<string, number> = {}
      const since = (from: number) => Date.now() - from
      let t = Date.now()
      const formation: Formation = await startFormation()
      cleanups.push(formation.stop)
      timings['formation up'] = since(t)
      const first = await formation.primary()
      const standby = formation.nodes.find((n) => n.name !== first.name)!
      const proxy = await startFollowPrimaryProxy({ mode: { kind: 'cut' }, locate: formation.writableNode })
      // And one that lags 30 s behind, as a cached DNS answer would.
      const lagging = await startFollowPrimaryProxy({
        mode: { kind: 'late', ms: 30_000 },
        locate: formation.writableNode,
      })
      cleanups.push(proxy.close, lagging.close)
      const viaProxy = urlOf(proxy)
      expect(proxy.target().name).toBe(first.name)

      // Synchronous: the commit waited for the standby's flush, so the row is there once replayed.
      await queryOnce(viaProxy, 'CREATE TABLE harness (id int PRIMARY KEY)')
      await queryOnce(viaProxy, 'INSERT INTO harness VALUES (1)')
      const [settings] = await queryOnce<{ names: string; commit: string }>(
        first.url,
        "SELECT current_setting('synchronous_standby_names') AS names, current_setting('synchronous_commit') AS commit",
      )
      expect(settings).toEqual({
        names: expect.stringMatching(/^ANY 1 \(pgautofailover_standby_\d+\)$/),
        commit: 'on',
      })
      await waitUntil('the standby replays row 1', async () => (await ids(standby.url)).includes(1), 5_000)

      t = Date.now()
      const switching = formation.performSwitchover()
      const switched = await formation.waitForNewPrimaryWritable(first)
      timings['switchover: writable again'] = switched.at - t
      timings['switchover: no writer'] = switched.noWriterUntil - switched.noWriterFrom
      await switching
      timings['switchover: pg_autoctl done'] = since(t)
      // The monitor's event log, which the failover scenarios read (and print when one fails), has the steps.
      expect(await formation.events(t)).toContainEqual(
        expect.objectContaining({ node: standby.name, reported: 'secondary', goal: 'prepare_promotion' }),
      )
      expect(switched.node.name).toBe(standby.name)
      expect((await formation.primary()).name).toBe(standby.name)
      await waitUntil('the proxy follows the switchover', () => proxy.target().name === standby.name, 5_000)
      timings['switchover: proxy follows'] = proxy.switches()[0]!.at - switched.at
      await queryOnce(viaProxy, 'INSERT INTO harness VALUES (2)')
      expect(await ids(standby.url)).toEqual([1, 2])
      // The old primary is back as a standby: reachable, and it refuses writes.
      let refusal: unknown
      const tryWrite = async () => {
        try {
          await queryOnce(first.url, 'INSERT INTO harness VALUES (3)')
          return true
        } catch (error) {
          refusal = error
          return sqlstateOf(error) === '25006'
        }
      }
      await waitUntil('the old primary answers', tryWrite, 30_000)
      expect(sqlstateOf(refusal)).toBe('25006')
      // New connections through the lagging proxy still reach the old node.
      expect(lagging.target().name).toBe(standby.name)
      const [late] = await queryOnce<{ port: number }>(urlOf(lagging), 'SELECT inet_server_port() AS port')
      expect(late?.port).toBe(first.port)

      t = Date.now()
      const killed = await formation.killPrimary()
      expect(killed.name).toBe(standby.name)
      const back = await formation.waitForNewPrimaryWritable(killed)
      timings['kill: writable again'] = back.at - t
      expect(back.node.name).toBe(first.name)
      await waitUntil('the proxy follows the failover', () => proxy.target().name === first.name, 5_000)
      timings['kill: proxy follows'] = proxy.switches()[1]!.at - back.at
      await queryOnce(viaProxy, 'INSERT INTO harness VALUES (3)')
      // Row 2 was acknowledged by the node now dead: synchronous replication kept it.
      expect(await ids(first.url)).toEqual([1, 2, 3])
      expect((await formation.primary()).name).toBe(first.name)

      t = Date.now()
      await formation.stop()
      timings['stop'] = since(t)
      expect(existsSync(formation.dir)).toBe(false)
      expect(processesMentioning(formation.dir)).toEqual([])
      console.log(`auto-failover formation timings (ms): ${JSON.stringify(timings)}`)
    },
  )
})
