import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest'
import { READY_CHECK_EVERY_MS } from '../src/create-service.js'
import { checkAnswers, FIRST_201_WITHIN_MS } from './support/auto-failover/check-answers.js'
import { checkReadiness } from './support/auto-failover/check-readiness.js'
import { checkStoredPets } from './support/auto-failover/check-stored-pets.js'
import { startFailoverLoad } from './support/auto-failover/failover-load.js'
import { startFollowPrimaryProxy, type FollowMode } from './support/auto-failover/follow-primary-proxy.js'
import { startFormation, type Formation } from './support/auto-failover/formation.js'
import { eventLines } from './support/auto-failover/monitor.js'
import { urlOf } from './support/auto-failover/node-sql.js'
import {
  sharedFailover,
  type FailoverEvent,
  type SharedFailover,
} from './support/auto-failover/shared-failover.js'
import { answeredWhileUnprotected, unprotectedWindow } from './support/auto-failover/unprotected-writes.js'
import { waitUntil } from './support/auto-failover/wait-until.js'
import { waitUntilSettled } from './support/auto-failover/wait-until-settled.js'
import { startTestService } from './support/test-service.js'

// Issue 29: the service under load while a real pg_auto_failover formation changes its primary,
// planned (`pg_autoctl perform switchover`) or not (the primary's postmaster and pg_autoctl
// SIGKILLed), reached through a multi-host URL or through a proxy that follows the primary. Every
// service runs with the defaults of DATABASE_*: they are what is tested.
// One formation serves the file, its standby still coming up as the first services start. The
// scenarios of one event run at once, each with its own service, load and proxy, and see the same
// failover. A late proxy leaves the least room (writes come back 2 s late, and /readyz may answer
// from a check READY_CHECK_EVERY_MS old), so each late scenario has an event to itself, with no other
// service competing for the CPU. Kills come last; the killed node rejoins as a standby (formation.heal)
// while the next round starts its services. No pet answered 201 may be lost, but those the database
// itself lost: acknowledged by an old primary that pg_auto_failover had run without its synchronous
// standby during the failover (unprotected-writes.ts; counted as lostByDatabase).
const KEY = 'failover-e2e-key-3f9a0c17d2b84e65a1'
const LATE_MS = 2_000
// The demoted node back as a read-only standby while the proxy still sends it new connections, as an
// endpoint that follows late does: the connections it took answer 25006 until the pool drops them.
const STALE_MS_AFTER_SWITCHOVER = 1_500
// How long /readyz must answer only 200 after writes came back before the load stops: longer than
// the service shares an answer, so that one fresh check at least is seen.
const SETTLED_FOR_MS = READY_CHECK_EVERY_MS + 500
type Transport = { readonly name: string; readonly mode?: FollowMode | 'stale' }
const MULTI_HOST: Transport = { name: 'multi-host URL' }
const CUT: Transport = { name: 'proxy, cut', mode: { kind: 'cut' } }
const KEEP: Transport = { name: 'proxy, keep', mode: { kind: 'keep' } }
const LATE: Transport = { name: `proxy, late ${LATE_MS} ms`, mode: { kind: 'late', ms: LATE_MS } }
const STALE: Transport = { name: 'proxy, stale until the demoted node is a standby', mode: 'stale' }
const ROUNDS: ReadonlyArray<readonly [FailoverEvent, ReadonlyArray<Transport>]> = [
  ['switchover', [MULTI_HOST, CUT, KEEP, STALE]],
  ['switchover', [LATE]],
  ['primary killed', [LATE]],
  ['primary killed', [MULTI_HOST, CUT, KEEP]],
]

let formation: Formation | undefined
beforeAll(async () => void (formation = await startFormation({ standbyInBackground: true })), 120_000)
afterAll(() => formation?.stop())

const summary: Array<Record<string, unknown>> = []
afterAll(() => {
  console.log(
    `failover figures (ms from the new primary's first write unless said):\n${summary.map((row) => JSON.stringify(row)).join('\n')}`,
  )
})

// When a late proxy stops sending new connections to the old node (it notices the change within its interval).
const lateEnd = async (proxy: { readonly lateUntil: () => number | undefined }) => {
  await waitUntil('the proxy notices the new primary', () => proxy.lateUntil() !== undefined, 5_000)
  return proxy.lateUntil()!
}

const scenario = async (
  failover: SharedFailover,
  transport: Transport,
  prefix: string,
  expect: ExpectStatic,
) => {
  const row: Record<string, unknown> = { scenario: `${failover.event}, ${transport.name}` }
  summary.push(row)
  const cleanups: Array<() => Promise<unknown>> = []
  let joined = false
  let staleOverAt: number | undefined
  failover.prepare()
  try {
    const mode: FollowMode | undefined =
      transport.mode === 'stale'
        ? { kind: 'stale', over: () => staleOverAt !== undefined && Date.now() >= staleOverAt }
        : transport.mode
    let databaseUrl = formation!.multiHostUrl
    let proxy: Awaited<ReturnType<typeof startFollowPrimaryProxy>> | undefined
    if (mode !== undefined) {
      proxy = await startFollowPrimaryProxy({ mode, locate: formation!.writableNode })
      cleanups.push(proxy.close)
      databaseUrl = urlOf(proxy)
    }
    const svc = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: databaseUrl, API_KEYS: KEY },
      timeoutMs: 30_000,
    })
    cleanups.push(() => svc.stop('SIGKILL'))
    // The scenarios share one database: each names its pets and keys apart.
    const load = startFailoverLoad(svc.url, KEY, { prefix })
    cleanups.push(load.stop)
    await waitUntil(
      'the load creates pets',
      () => load.samples.filter((s) => s.status === 201).length >= 20,
      15_000,
    )

    joined = true
    const seen = await failover.join()
    const done = await seen.done
    // With a stale endpoint, writes can come back only once it follows: the bounds count from then.
    if (mode?.kind === 'stale') staleOverAt = done + STALE_MS_AFTER_SWITCHOVER
    // A late endpoint, the same: the service cannot reach the new primary before it follows.
    const lateOverAt = mode?.kind === 'late' ? await lateEnd(proxy!) : undefined
    const writable = { ...seen.writable, at: Math.max(seen.writable.at, staleOverAt ?? 0, lateOverAt ?? 0) }
    // Until the first 201 and /readyz settle, then SETTLED_FOR_MS more; at the latest 2 s past the bound.
    await waitUntilSettled(
      load.samples,
      writable.at,
      SETTLED_FOR_MS,
      writable.at + FIRST_201_WITHIN_MS + 2_000,
    )
    const samples = await load.stop()
    const answers = checkAnswers(samples, writable, seen.eventAt)
    const readiness = checkReadiness(samples, writable, READY_CHECK_EVERY_MS)
    const primary = await formation!.primary()
    // The monitor's log, from the heal before the failover on: whether the old primary ran without its
    // synchronous standby (a pg_auto_failover race, unprotected-writes.ts), and why, if anything fails.
    const since = seen.eventAt - 10_000
    const events = await formation!.events(since)
    const unprotected = unprotectedWindow(events, seen.previous.name, seen.eventAt)
    const stored = await checkStoredPets({
      url: svc.url,
      apiKey: KEY,
      samples,
      primaryUrl: primary.url,
      eventAt: seen.eventAt,
      unprotected: answeredWhileUnprotected(unprotected),
    })
    Object.assign(row, answers.figures, readiness.figures, stored.figures)
    if (unprotected !== undefined)
      row['unprotectedMs'] = [unprotected.from - seen.eventAt, unprotected.until - seen.eventAt]
    const problems = [...answers.problems, ...readiness.problems, ...stored.problems]
    row['problems'] = problems.length
    // How often the service met a read-only session (the demoted node, a promoted standby not yet open).
    row['readOnlyLogLines'] = svc
      .output()
      .split('\n')
      .filter((l) => l.includes('"sqlstate":"25006"')).length
    expect(svc.output()).not.toContain('"status":500')
    // The stale endpoint did hand the service sessions on the demoted node (else it tested nothing).
    if (mode?.kind === 'stale') expect(row['readOnlyLogLines']).toBeGreaterThan(0)
    expect(
      problems,
      `${row['scenario']}: ${JSON.stringify(row)}\n${eventLines(events, since).join('\n')}`,
    ).toEqual([])
  } catch (error) {
    if (!joined) failover.leave()
    row['error'] ??= (error instanceof Error ? error.message : String(error))
      .replace(/\s+/g, ' ')
      .slice(0, 300)
    throw error
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup()
  }
}

const titleOf = (event: FailoverEvent, transport: Transport) =>
  transport === STALE
    ? `switchover, through a proxy that sends new connections to the demoted node until it is a read-only standby: the pool drops them, writes back within ${FIRST_201_WITHIN_MS} ms of the proxy following`
    : `${event}, through ${transport.name}: no 500, writes back within ${FIRST_201_WITHIN_MS} ms${transport === LATE ? ' of the proxy following' : ''}, no pet lost, each key once`

describe('the service while pg_auto_failover changes the primary, under load', () => {
  for (const [r, [event, transports]] of ROUNDS.entries())
    describe(`${event} ${r + 1}, watched by ${transports.map((t) => t.name).join('; ')}`, () => {
      let watchers = transports.length
      const failover = sharedFailover(
        event,
        () => watchers,
        () => formation!,
      )
      for (const [t, transport] of transports.entries())
        it.concurrent(titleOf(event, transport), { timeout: 120_000 }, ({ expect, task }) => {
          // The scenarios that run: all, unless a test filter skips some.
          watchers = task.suite!.tasks.filter((s) => s.mode !== 'skip' && s.mode !== 'todo').length
          return scenario(failover, transport, `r${r}s${t}-`, expect)
        })
    })
})
