import type { Formation, FormationNode, WritableAgain } from './formation.js'

/** A change of primary: `pg_autoctl perform switchover`, or the primary's postmaster and pg_autoctl SIGKILLed. */
export type FailoverEvent = 'switchover' | 'primary killed'

/** What one failover did, as every scenario that watched it sees it. */
export type FailoverSeen = {
  /** When the switchover was asked for, or the primary killed (Date.now()). */
  readonly eventAt: number
  /** The primary before the failover. */
  readonly previous: FormationNode
  readonly writable: WritableAgain
  /** When pg_autoctl's switchover returned (the old primary a standby again), or the kill was done. */
  readonly done: Promise<number>
}

const EVENTS: Record<FailoverEvent, (formation: Formation) => Promise<unknown>> = {
  switchover: (formation) => formation.performSwitchover(),
  'primary killed': (formation) => formation.killPrimary(),
}

/**
 * One failover of `formation()` watched by `watchers()` scenarios at once (asked when the first one
 * joins: those that run, once a test filter is applied). Each calls `prepare` first (the formation heals
 * meanwhile: formation.heal), then `join` once its load runs (or `leave` if it failed before); the
 * failover starts when every one has. The scenarios must run concurrently (vitest's maxConcurrency, 5
 * by default, at least `watchers()`): `join` gives up after `timeoutMs`.
 */
export const sharedFailover = (
  event: FailoverEvent,
  watchers: () => number,
  formation: () => Formation,
  timeoutMs = 60_000,
) => {
  let joined = 0
  let left = 0
  let start!: () => void
  const everyone = new Promise<void>((resolve) => (start = resolve))
  const count = () => {
    if (joined > 0 && joined + left >= watchers()) start()
  }
  let healed: Promise<void> | undefined
  const heal = () => {
    if (healed === undefined) {
      healed = formation().heal()
      // Awaited before the failover; until then, a failure must not count as unhandled.
      healed.catch(() => {})
    }
    return healed
  }
  let seen: Promise<FailoverSeen> | undefined
  const run = async (): Promise<FailoverSeen> => {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`only ${joined} of ${watchers()} scenarios joined the ${event} in ${timeoutMs} ms`),
          ),
        timeoutMs,
      )
    })
    await Promise.race([everyone, late]).finally(() => clearTimeout(timer))
    await heal()
    const f = formation()
    const first = await f.primary()
    const eventAt = Date.now()
    const done = EVENTS[event](f).then(() => Date.now())
    // Each watcher awaits it; until then, a failure must not count as unhandled.
    done.catch(() => {})
    // A switchover that fails says why (pg_autoctl's output), not "no node took a write" a minute later.
    const failed = done.then(() => new Promise<never>(() => {}))
    failed.catch(() => {}) // a failure after the new primary took a write is the watchers' (they await done)
    const writable = await Promise.race([f.waitForNewPrimaryWritable(first), failed])
    return { eventAt, previous: first, writable, done }
  }
  return {
    event,
    /** Starts healing the formation for this failover, once for all its scenarios. */
    prepare: (): void => void heal(),
    /** Counts this scenario in and resolves once the failover has a new primary that took a write. */
    join: (): Promise<FailoverSeen> => {
      joined++
      count()
      return (seen ??= run())
    },
    /** Counts out a scenario that will not join, so that the others need not wait for it. */
    leave: (): void => {
      left++
      count()
    },
  }
}

/** A failover shared by several scenarios, as sharedFailover returns it. */
export type SharedFailover = ReturnType<typeof sharedFailover>
