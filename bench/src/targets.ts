import type { ColdStarts } from './cold-starts.js'
import { median } from './load.js'
import { mib } from './memory.js'
import type { ModeFigures, ScenarioFigures } from './run-mode.js'
import type { ScaleFigures } from './run-scale.js'

/** One target of the issue, what was measured, and whether it was met. */
export type Target = {
  readonly what: string
  readonly goal: string
  readonly measured: string
  readonly met: boolean
}

/** Per round, the service's figure divided by the baseline's. */
export const ratios = (figures: ScenarioFigures, baseline: string, of: 'requestsPerSecond' | 'p99Ms') =>
  figures.rounds.map((round) => round['service']![of] / round[baseline]![of])

const MIB = 1024 * 1024
const x = (n: number) => `${n.toFixed(2)}×`

// Which baseline each scenario is held against, and how close the service must come.
const GOALS: Readonly<Record<string, ReadonlyArray<{ scenario: string; baseline: string; min: number }>>> = {
  memory: [
    { scenario: 'list-20', baseline: 'fastify', min: 0.9 },
    { scenario: 'list-100-status', baseline: 'fastify', min: 0.9 },
    { scenario: 'create', baseline: 'node:http', min: 0.8 },
  ],
  postgres: ['list-20', 'list-100-status', 'create', 'get'].map((scenario) => ({
    scenario,
    baseline: 'node:http+pg',
    min: 0.9,
  })),
}

/** Checks every target of the issue against a run's figures (medians of per-round ratios). */
export const checkTargets = (
  modes: ReadonlyArray<ModeFigures>,
  coldStarts: ReadonlyArray<ColdStarts>,
  scale: ScaleFigures | undefined,
): ReadonlyArray<Target> => {
  const targets: Array<Target> = []
  for (const mode of modes)
    for (const goal of GOALS[mode.mode] ?? []) {
      const figures = mode.scenarios.find((s) => s.scenario.key === goal.scenario)
      if (figures === undefined) continue
      const throughput = median(ratios(figures, goal.baseline, 'requestsPerSecond'))
      const p99 = median(ratios(figures, goal.baseline, 'p99Ms'))
      const what = `${mode.mode}, ${figures.scenario.title}`
      targets.push(
        {
          what: `${what}: requests/s`,
          goal: `≥ ${goal.min}× ${goal.baseline}`,
          measured: x(throughput),
          met: throughput >= goal.min,
        },
        { what: `${what}: p99 latency`, goal: `≤ 1.5× ${goal.baseline}`, measured: x(p99), met: p99 <= 1.5 },
      )
    }
  const peak = Math.max(
    0,
    ...modes.map((m) => m.servers.find((s) => s.name === 'service')?.peakRssBytes ?? 0),
  )
  if (modes.length > 0)
    targets.push({
      what: 'service: peak RSS under load',
      goal: '≤ 120 MiB',
      measured: `${mib(peak)} MiB`,
      met: peak <= 120 * MIB,
    })
  const cold = coldStarts.find((c) => c.name === 'service')
  if (cold !== undefined)
    targets.push({
      what: 'service: cold start (median)',
      goal: '≤ 400 ms',
      measured: `${cold.medianMs.toFixed(0)} ms`,
      met: cold.medianMs <= 400,
    })
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
  return targets
}
