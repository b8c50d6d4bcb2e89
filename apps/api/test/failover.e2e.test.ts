import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { READY_CHECK_EVERY_MS } from '../src/create-service.js'
import { checkAnswers, FIRST_201_WITHIN_MS } from './support/auto-failover/check-answers.js'
import { checkReadiness } from './support/auto-failover/check-readiness.js'
import { checkStoredPets } from './support/auto-failover/check-stored-pets.js'
import { startFailoverLoad } from './support/auto-failover/failover-load.js'
import { startFollowPrimaryProxy, type FollowMode } from './support/auto-failover/follow-primary-proxy.js'
import { startFormation, type Formation } from './support/auto-failover/formation.js'
import { urlOf } from './support/auto-failover/node-sql.js'
import { waitUntil } from './support/auto-failover/wait-until.js'
import { startTestService } from './support/test-service.js'

// Issue 29: the service under load while a real pg_auto_failover formation changes its primary,
// planned (`pg_autoctl perform switchover`) or not (the primary's postmaster and pg_autoctl
// SIGKILLed), reached through a multi-host URL or through a proxy that follows the primary. Every
// service runs with the defaults of DATABASE_*: they are what is tested.
const KEY = 'failover-e2e-key-3f9a0c17d2b84e65a1'
const LATE_MS = 2_000
const TRANSPORTS: Record<string, FollowMode | undefined> = {
  'multi-host URL': undefined,
  'proxy, cut': { kind: 'cut' },
  'proxy, keep': { kind: 'keep' },
  [`proxy, late ${LATE_MS} ms`]: { kind: 'late', ms: LATE_MS },
}
// The demoted node back as a read-only standby while the proxy still sends it new connections, as an
// endpoint that follows late does: the connections it took answer 25006 until the pool drops them.
const STALE_MS_AFTER_SWITCHOVER = 1_500
let staleOverAt: number | undefined
const STALE: FollowMode = {
  kind: 'stale',
  over: () => staleOverAt !== undefined && Date.now() >= staleOverAt,
}
const EVENTS = {
  switchover: (formation: Formation) => formation.performSwitchover(),
  'primary killed': async (formation: Formation) => void (await formation.killPrimary()),
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

const summary: Array<Record<string, unknown>> = []
afterAll(() => {
  console.log(
    `failover figures (ms from the new primary's first write unless said):\n${summary.map((row) => JSON.stringify(row)).join('\n')}`,
  )
})

describe('the service while pg_auto_failover changes the primary, under load', () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  const scenario = async (transport: string, mode: FollowMode | undefined, event: keyof typeof EVENTS) => {
    const row: Record<string, unknown> = { scenario: `${event}, ${transport}` }
    summary.push(row)
    staleOverAt = undefined
    try {
      const formation = await startFormation()
      cleanups.push(formation.stop)
      const first = await formation.primary()
      let databaseUrl = formation.multiHostUrl
      if (mode !== undefined) {
        const proxy = await startFollowPrimaryProxy({ mode, locate: formation.writableNode })
        cleanups.push(proxy.close)
        databaseUrl = urlOf(proxy)
      }
      const svc = await startTestService({
        mode: 'child',
        env: { DATABASE_URL: databaseUrl, API_KEYS: KEY },
        timeoutMs: 30_000,
      })
      cleanups.push(() => svc.stop('SIGKILL'))
      const load = startFailoverLoad(svc.url, KEY)
      await waitUntil(
        'the load creates pets',
        () => load.samples.filter((s) => s.status === 201).length >= 20,
        15_000,
      )

      const eventAt = Date.now()
      const done = EVENTS[event](formation)
      const newPrimary = await formation.waitForNewPrimaryWritable(first)
      await done
      // With a stale endpoint, writes can come back only once it follows: the bounds count from then.
      if (mode === STALE) staleOverAt = Date.now() + STALE_MS_AFTER_SWITCHOVER
      const writable = { ...newPrimary, at: Math.max(newPrimary.at, staleOverAt ?? 0) }
      // Long enough to see the first 201 and /readyz settle, then some more.
      await pause(writable.at + FIRST_201_WITHIN_MS + 2_000 - Date.now())
      const samples = await load.stop()
      const answers = checkAnswers(samples, writable, eventAt)
      const readiness = checkReadiness(samples, writable, READY_CHECK_EVERY_MS)
      const primary = await formation.primary()
      const stored = await checkStoredPets({ url: svc.url, apiKey: KEY, samples, primaryUrl: primary.url })
      Object.assign(row, answers.figures, readiness.figures, stored.figures)
      const problems = [...answers.problems, ...readiness.problems, ...stored.problems]
      row['problems'] = problems.length
      // How often the service met a read-only session (the demoted node, a promoted standby not yet open).
      row['readOnlyLogLines'] = svc
        .output()
        .split('\n')
        .filter((l) => l.includes('"sqlstate":"25006"')).length
      expect(svc.output()).not.toContain('"status":500')
      // The stale endpoint did hand the service sessions on the demoted node (else it tested nothing).
      if (mode === STALE) expect(row['readOnlyLogLines']).toBeGreaterThan(0)
      expect(problems, `${row['scenario']}: ${JSON.stringify(row)}`).toEqual([])
    } catch (error) {
      row['error'] ??= (error instanceof Error ? error.message : String(error))
        .replace(/\s+/g, ' ')
        .slice(0, 300)
      throw error
    }
  }

  for (const [transport, mode] of Object.entries(TRANSPORTS))
    for (const event of Object.keys(EVENTS) as Array<keyof typeof EVENTS>)
      it(
        `${event}, through ${transport}: no 500, writes back within ${FIRST_201_WITHIN_MS} ms, no pet lost, each key once`,
        { timeout: 180_000 },
        () => scenario(transport, mode, event),
      )
  it(
    `switchover, through a proxy that sends new connections to the demoted node until it is a read-only standby: the pool drops them, writes back within ${FIRST_201_WITHIN_MS} ms of the proxy following`,
    { timeout: 180_000 },
    () => scenario('proxy, stale until the demoted node is a standby', STALE, 'switchover'),
  )
})
