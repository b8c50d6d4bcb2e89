import type { ColdStarts } from './cold-starts.js'
import { median } from './load.js'
import { x } from './markdown.js'
import { mib } from './memory.js'
import type { ModeFigures, ScenarioFigures } from './run-mode.js'
import type { ScaleFigures } from './run-scale.js'
import { TRACING_AIMS, TRACING_VARIANTS, type TracingFigures } from './run-tracing.js'
import { writeSummary, type WriteCeiling } from './run-write-ceiling.js'
import type { Mode } from './servers.js'

/** One target of the issue, what was measured, and whether it was met. */
export type Target = {
  readonly what: string
  readonly goal: string
  readonly measured: string
  readonly met: boolean
}

/** Per round, one contestant's figure divided by another's. */
export const ratios = (
  figures: ScenarioFigures,
  subject: string,
  other: string,
  of: 'requestsPerSecond' | 'p99Ms',
): ReadonlyArray<number> => figures.rounds.map((round) => round[subject]![of] / round[other]![of])

const MIB = 1024 * 1024
const LISTS = ['list-20', 'list-100-status']

// Issue 12: whose requests/s the service's must reach, in which scenarios, and how closely.
const THROUGHPUT: ReadonlyArray<{
  readonly mode: Mode
  readonly scenarios: ReadonlyArray<string>
  readonly baseline: string
  readonly min: number
}> = [
  { mode: 'memory', scenarios: [...LISTS, 'create'], baseline: 'koa', min: 1 },
  { mode: 'memory', scenarios: [...LISTS, 'create'], baseline: 'fastify', min: 0.7 },
  { mode: 'postgres', scenarios: [...LISTS, 'create'], baseline: 'platformatic-db', min: 1 },
  { mode: 'postgres', scenarios: LISTS, baseline: 'node:http+pg', min: 0.9 },
  { mode: 'postgres', scenarios: ['create'], baseline: 'node:http+pg', min: 0.8 },
  // The first contestant of this scenario is the service with a stored key, the other with API_KEYS.
  { mode: 'postgres', scenarios: ['list-20-stored-key'], baseline: 'service', min: 0.9 },
]
const P99_VS_KOA = 1.5
const P99_MAX_MS = 50
const COLD_START_MS: Readonly<Record<Mode, number>> = { memory: 300, postgres: 400 }
const IDLE_RSS_MIB = 70
const PEAK_RSS_MIB = 120
// Issue 26: two instances on one database insert at least as fast as one, and seldom wait on a lock.
const WRITE_TWO_OVER_ONE = 1
const WRITE_LOCK_SHARE = 0.1

/** Checks every target of the issue against a run's figures (medians of per-round ratios). */
export const checkTargets = (
  modes: ReadonlyArray<ModeFigures>,
  coldStarts: ReadonlyArray<ColdStarts>,
  scale: ScaleFigures | undefined,
  write: WriteCeiling | undefined = undefined,
  tracing: TracingFigures | undefined = undefined,
): ReadonlyArray<Target> => {
  const targets: Array<Target> = []
  for (const mode of modes) {
    for (const figures of mode.scenarios) {
      const [subject, ...others] = figures.contestants as [string, ...Array<string>]
      const what = `${mode.mode}, ${figures.scenario.title}`
      for (const goal of THROUGHPUT)
        if (
          goal.mode === mode.mode &&
          goal.scenarios.includes(figures.scenario.key) &&
          others.includes(goal.baseline)
        ) {
          const ratio = median(ratios(figures, subject, goal.baseline, 'requestsPerSecond'))
          targets.push({
            what: `${what}: requests/s`,
            goal: `≥ ${goal.min.toFixed(1)}× ${goal.baseline}`,
            measured: x(ratio),
            met: ratio >= goal.min,
          })
        }
      const koa = others.find((name) => name.startsWith('koa'))
      if (koa !== undefined) {
        const ratio = median(ratios(figures, subject, koa, 'p99Ms'))
        targets.push({
          what: `${what}: p99`,
          goal: `≤ ${P99_VS_KOA}× ${koa}`,
          measured: x(ratio),
          met: ratio <= P99_VS_KOA,
        })
      }
      const p99 = median(figures.rounds.map((round) => round[subject]!.p99Ms))
      targets.push({
        what: `${what}: p99 of ${subject}`,
        goal: `≤ ${P99_MAX_MS} ms`,
        measured: `${p99.toFixed(1)} ms`,
        met: p99 <= P99_MAX_MS,
      })
    }
    const cold = coldStarts.find((c) => c.mode === mode.mode && c.name === 'service')
    if (cold !== undefined)
      targets.push(
        {
          what: `${mode.mode}, service: cold start (median)`,
          goal: `≤ ${COLD_START_MS[mode.mode]} ms`,
          measured: `${cold.medianMs.toFixed(0)} ms`,
          met: cold.medianMs <= COLD_START_MS[mode.mode],
        },
        {
          what: `${mode.mode}, service: idle RSS`,
          goal: `≤ ${IDLE_RSS_MIB} MiB`,
          measured: `${mib(cold.idleRssBytes)} MiB`,
          met: cold.idleRssBytes <= IDLE_RSS_MIB * MIB,
        },
      )
    const peak = mode.servers.find((s) => s.name === 'service')?.peakRssBytes ?? 0
    targets.push({
      what: `${mode.mode}, service: peak RSS under load`,
      goal: `≤ ${PEAK_RSS_MIB} MiB`,
      measured: `${mib(peak)} MiB`,
      met: peak <= PEAK_RSS_MIB * MIB,
    })
  }
  if (scale !== undefined) {
    const sizes = [...new Set(scale.latencies.map((l) => l.pets))].sort((a, b) => a - b)
    const [small, large] = [sizes[0], sizes[sizes.length - 1]]
    for (const query of new Set(scale.latencies.map((l) => l.query))) {
      if (small === undefined || large === undefined || small === large || !query.startsWith('list')) continue
      const at = (pets: number) =>
        scale.latencies.find((l) => l.pets === pets && l.query === query && l.server === 'service')!
      const growth = at(large).p50Ms / at(small).p50Ms
      targets.push({
        what: `postgres, ${query}: p50 latency at ${large.toLocaleString('en')} pets`,
        goal: `≤ 1.5× at ${small.toLocaleString('en')}`,
        measured: x(growth),
        met: growth <= 1.5,
      })
    }
    const seqScans = scale.plans.filter((p) => /Seq Scan/.test(p.plan)).map((p) => p.title)
    targets.push({
      what: `postgres: plans at ${scale.plannedAt.toLocaleString('en')} pets use the indexes`,
      goal: 'no Seq Scan',
      measured: seqScans.length === 0 ? 'index scans only' : `Seq Scan in ${seqScans.join(', ')}`,
      met: seqScans.length === 0,
    })
  }
  if (write !== undefined) {
    const w = writeSummary(write)
    const half = Math.max(1, Math.round(write.connections / 2))
    const what = `postgres, create on two instances (2 × ${half} connections)`
    targets.push(
      {
        what: `${what}: inserts/s`,
        goal: `≥ ${WRITE_TWO_OVER_ONE.toFixed(1)}× one instance (${write.connections} connections)`,
        measured: x(w.ratio),
        met: w.ratio >= WRITE_TWO_OVER_ONE,
      },
      {
        what: `${what}: busy samples waiting on a Lock`,
        goal: `< ${WRITE_LOCK_SHARE * 100} %`,
        measured: `${(w.lockTwo * 100).toFixed(1)} % (one instance: ${(w.lockOne * 100).toFixed(1)} %)`,
        met: w.lockTwo < WRITE_LOCK_SHARE,
      },
    )
  }
  // Issue 28: list 20 with tracing on, against off, in the same run.
  for (const m of tracing?.modes ?? [])
    for (const { key, title } of TRACING_VARIANTS) {
      if (key === 'off') continue
      const ratio = median(m.rounds.map((r) => r[key].requestsPerSecond / r.off.requestsPerSecond))
      const aim = TRACING_AIMS[m.mode][key]
      targets.push({
        what: `${m.mode}, list 20, tracing ${title}: requests/s`,
        goal: `≥ ${aim.toFixed(2)}× tracing off`,
        measured: x(ratio),
        met: ratio >= aim,
      })
    }
  return targets
}
