import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { median } from '../load.js'
import { n0, table } from '../markdown.js'
import type { Cost } from './drive-in-process.js'
import { VARIANTS, type Variant } from './variants.js'

/** The ablation: per variant and request, the median cost over the rounds. */
export type AblationFigures = {
  readonly requestsPerRun: number
  readonly rounds: number
  readonly costs: ReadonlyArray<{ readonly variant: Variant; readonly costs: Readonly<Record<string, Cost>> }>
}

// src/ablation and dist/ablation are both two levels below the package; the child runs from dist/.
const CHILD = fileURLToPath(new URL('../../dist/ablation/ablation-child.js', import.meta.url))

// One variant in a fresh process: its own JIT, its own heap, its log lines to /dev/null.
const runVariant = (variant: Variant, requests: number): Record<string, Cost> => {
  const run = spawnSync(process.execPath, [CHILD, variant, String(requests)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 300_000,
  })
  const last = run.stderr.trim().split('\n').at(-1) ?? ''
  if (run.status !== 0 || !last.startsWith('{'))
    throw new Error(`the ablation of "${variant}" failed (exit ${run.status}): ${run.stderr.slice(-400)}`)
  return JSON.parse(last) as Record<string, Cost>
}

/**
 * Measures what each per-request piece costs, in memory: the service composed as createService
 * composes it, driven in-process (node's own request and response objects, no socket, no load
 * generator), with one piece changed at a time, and bare Koa 3 + @koa/router doing the same work.
 * Variants alternate within each round; the medians are reported.
 */
export const runAblation = (
  requests: number,
  rounds: number,
  log: (line: string) => void,
): AblationFigures => {
  const runs = new Map<Variant, Array<Record<string, Cost>>>(VARIANTS.map((v) => [v, []]))
  for (let round = 1; round <= rounds; round++)
    for (const variant of VARIANTS) {
      log(`ablation: round ${round}/${rounds}, ${variant}`)
      runs.get(variant)!.push(runVariant(variant, requests))
    }
  return {
    requestsPerRun: requests,
    rounds,
    costs: VARIANTS.map((variant) => {
      const all = runs.get(variant)!
      const names = Object.keys(all[0] ?? {})
      const costs = Object.fromEntries(
        names.map((name) => [
          name,
          { cpuUs: median(all.map((c) => c[name]!.cpuUs)), bytes: median(all.map((c) => c[name]!.bytes)) },
        ]),
      )
      return { variant, costs }
    }),
  }
}

/** The ablation table of RESULTS.md: cost per request, and its difference from the service as shipped. */
export const ablationSection = (figures: AblationFigures): string => {
  const shipped = figures.costs.find((c) => c.variant === 'service as shipped')!.costs
  const names = Object.keys(shipped)
  const delta = (value: number, base: number) =>
    `${value - base >= 0 ? '+' : '−'}${n0(Math.abs(value - base))}`
  return [
    '## Ablation: what each piece of a request costs (in memory, in-process)',
    '',
    `Each variant runs in a fresh process that drives the app with node's own request and response ` +
      `objects and no socket (${figures.requestsPerRun} requests per run, ${figures.rounds} rounds, ` +
      'variants alternating, medians): the JavaScript of a request, without the kernel work and the ' +
      'load generator that every server shares. CPU µs and bytes allocated per request; Δ is the ' +
      'difference from the service as shipped.',
    '',
    table(
      ['variant', ...names.flatMap((n) => [`${n} µs`, 'Δ µs', `${n} bytes`, 'Δ bytes'])],
      figures.costs.map(({ variant, costs }) => [
        variant,
        ...names.flatMap((n) => [
          n0(costs[n]!.cpuUs),
          delta(costs[n]!.cpuUs, shipped[n]!.cpuUs),
          n0(costs[n]!.bytes),
          delta(costs[n]!.bytes, shipped[n]!.bytes),
        ]),
      ]),
    ),
  ].join('\n')
}
