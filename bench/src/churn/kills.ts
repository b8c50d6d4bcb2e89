import { setTimeout as sleep } from 'node:timers/promises'
import type { ChurnService } from './churn-service.js'

/** A stretch of the soak: which worker is killed (the oldest, or the one started last), how, how often. */
export type Phase = {
  readonly name: string
  /** Until this share (0..1) of the kills' time. */
  readonly until: number
  readonly pick: 'oldest' | 'youngest'
  readonly signals: ReadonlyArray<NodeJS.Signals>
  /** Seconds between a replacement that listens and the next kill, drawn between the two. */
  readonly gapS: readonly [number, number]
}

/**
 * Workers that ran a while, SIGKILL and SIGTERM in turn (replaced at once); then workers killed as soon as they
 * listen (the primary's back-off doubles); then workers that ran a while again (the back-off starts over).
 */
export const PHASES: ReadonlyArray<Phase> = [
  { name: 'steady', until: 0.7, pick: 'oldest', signals: ['SIGKILL', 'SIGTERM'], gapS: [4, 10] },
  {
    name: 'rapid',
    until: 0.9,
    pick: 'youngest',
    signals: ['SIGKILL', 'SIGKILL', 'SIGTERM'],
    gapS: [0.1, 0.5],
  },
  { name: 'steady again', until: 1, pick: 'oldest', signals: ['SIGKILL', 'SIGTERM'], gapS: [10, 14] },
]

/** One kill and what followed, in ms from the kill. */
export type Kill = {
  /** When (Date.now()) the signal was sent. */
  readonly at: number
  readonly phase: string
  readonly signal: NodeJS.Signals
  readonly worker: number
  /** How long the worker had listened. */
  readonly ageMs: number
  /** When the primary logged its exit (by the line's own time), and the back-off it said it would wait. */
  readonly goneMs?: number
  readonly restartInMs?: number
  readonly connectionsReset?: number
  /** When the replacement logged its `listening` line. */
  readonly listeningMs?: number
  /** What `onReplaced` returned once the replacement listened (the database's connections). */
  readonly after?: number
}

/**
 * Kills workers of `service` from `startMs` until `untilMs`, phase by phase, waiting each time for the worker to be gone and
 * its replacement to listen (at most 60 s); `onReplaced` measures something then.
 */
export const killWorkers = async (
  service: ChurnService,
  startMs: number,
  untilMs: number,
  onReplaced: () => Promise<number>,
  phases: ReadonlyArray<Phase> = PHASES,
): Promise<ReadonlyArray<Kill>> => {
  const kills: Array<Kill> = []
  await sleep(Math.max(0, startMs - Date.now()))
  for (let n = 0; Date.now() < untilMs; n++) {
    const share = (Date.now() - startMs) / (untilMs - startMs)
    const phase = phases.find((p) => share < p.until) ?? phases.at(-1)!
    const listening = service.listening()
    const workers = service.workers().filter((w) => listening.has(w))
    if (workers.length === 0) {
      await sleep(50)
      continue
    }
    workers.sort((a, b) => listening.get(a)! - listening.get(b)!)
    const worker = phase.pick === 'oldest' ? workers[0]! : workers.at(-1)!
    const signal = phase.signals[n % phase.signals.length]!
    const before = new Set(service.workers())
    const killedAt = Date.now()
    process.kill(worker, signal)
    let listeningMs: number | undefined
    while (listeningMs === undefined && Date.now() - killedAt < 60_000) {
      await sleep(20)
      const fresh = service.workers().find((w) => !before.has(w) && service.listening().has(w))
      if (fresh !== undefined) listeningMs = service.listening().get(fresh)! - killedAt
    }
    const exit = service.exits().get(worker)
    kills.push({
      at: killedAt,
      phase: phase.name,
      signal,
      worker,
      ageMs: killedAt - listening.get(worker)!,
      ...(exit === undefined
        ? {}
        : {
            goneMs: exit.time - killedAt,
            restartInMs: exit.restartInMs,
            connectionsReset: exit.connectionsReset,
          }),
      ...(listeningMs === undefined ? {} : { listeningMs, after: await onReplaced() }),
    })
    const [low, high] = phase.gapS
    await sleep((low + Math.random() * (high - low)) * 1000)
  }
  return kills
}
