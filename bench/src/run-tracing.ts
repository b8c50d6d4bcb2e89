import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { launch, type Launched } from './launch.js'
import { drive, type Sample } from './load.js'
import { n0 } from './markdown.js'
import type { BenchOptions } from './options.js'
import { startOtlpSink, type OtlpSink } from './otlp-sink.js'
import { seedThroughApi } from './run-mode.js'
import { scenariosFor } from './scenarios.js'
import { serviceSpec, type Mode, type Shared } from './servers.js'

/** The service with tracing off, on with every request sampled, and on with one trace in ten. */
export const TRACING_VARIANTS = [
  { key: 'off', title: 'tracing off', env: {} },
  { key: 'all', title: 'on, every request sampled', env: {} },
  {
    key: 'tenth',
    title: 'on, 10 % sampled',
    env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
  },
] as const
type VariantKey = (typeof TRACING_VARIANTS)[number]['key']
type Traced = Exclude<VariantKey, 'off'>

/** Issue 28's aims: requests per second with tracing on, against off, in the same run. */
export const TRACING_AIMS: Readonly<Record<Mode, Readonly<Record<Traced, number>>>> = {
  memory: { all: 0.85, tenth: 0.95 },
  postgres: { all: 0.9, tenth: 0.95 },
}

/** One mode's runs: each round drives every variant in turn with list 20. */
export type TracingModeFigures = {
  readonly mode: Mode
  readonly rounds: ReadonlyArray<Readonly<Record<VariantKey, Sample>>>
  /** Spans the receiver got from each traced service, and the requests that service answered in all. */
  readonly exported: Readonly<Record<Traced, { readonly spans: number; readonly requests: number }>>
}

/** What tracing costs: the no-op path of every request when off, then each mode's runs. */
export type TracingFigures = { readonly noopNs: number; readonly modes: ReadonlyArray<TracingModeFigures> }

// src/ and dist/ are both one level below the package; the child runs from dist/.
const NOOP = fileURLToPath(new URL('../dist/tracing-noop.js', import.meta.url))

const measureNoop = (count: number): number => {
  const run = spawnSync(process.execPath, [NOOP, String(count)], { encoding: 'utf8', timeout: 120_000 })
  const ns = Number(run.stdout.trim())
  if (run.status !== 0 || !Number.isFinite(ns))
    throw new Error(`tracing-noop failed: ${run.stderr.slice(-400)}`)
  return ns
}

// Resolves once `count` has not changed for 100 ms (2 s at most).
const settled = async (count: () => number): Promise<void> => {
  const giveUpAt = Date.now() + 2_000
  let last = -1
  while (Date.now() < giveUpAt && count() !== last) {
    last = count()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const runMode = async (
  mode: Mode,
  options: BenchOptions,
  shared: Shared,
  apiKey: string,
  sink: OtlpSink,
  log: (line: string) => void,
): Promise<TracingModeFigures> => {
  const scenario = scenariosFor(options.seededPets).find((s) => s.key === 'list-20')!
  const servers: Partial<Record<VariantKey, Launched>> = {}
  const answered: Record<VariantKey, number> = { off: 0, all: 0, tenth: 0 }
  try {
    for (const variant of TRACING_VARIANTS) {
      const base = serviceSpec(shared)
      const endpoint =
        variant.key === 'off'
          ? {}
          : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpointFor(`${mode}-${variant.key}`) }
      servers[variant.key] = await launch({
        ...base,
        name: variant.title,
        env: { ...base.env, ...endpoint, ...variant.env },
      })
      // The first 200 of /healthz.
      answered[variant.key] += 1
      if (shared.databaseUrl === undefined) {
        await seedThroughApi(servers[variant.key]!.url, apiKey, options.seededPets)
        answered[variant.key] += options.seededPets
      }
      if (options.warmup !== undefined)
        answered[variant.key] += (
          await drive(servers[variant.key]!, scenario, options.warmup, apiKey)
        ).requests
    }
    const rounds: Array<Record<VariantKey, Sample>> = []
    for (let round = 1; round <= options.rounds; round++) {
      const samples = {} as Record<VariantKey, Sample>
      // Each round starts with the next variant (A B C, B C A, …): none always follows the same one.
      const order = TRACING_VARIANTS.map(
        (_, i) => TRACING_VARIANTS[(i + round - 1) % TRACING_VARIANTS.length]!,
      )
      for (const { key } of order) {
        samples[key] = await drive(servers[key]!, scenario, options.load, apiKey)
        answered[key] += samples[key].requests
        // What a traced service still sends after its run is sent before the next run starts.
        if (key !== 'off') await settled(() => sink.spans(`${mode}-${key}`))
      }
      rounds.push(samples)
      log(
        `tracing ${mode} round ${round}/${options.rounds}: ` +
          TRACING_VARIANTS.map(
            ({ key, title }) => `${title} ${n0(samples[key].requestsPerSecond)} req/s`,
          ).join(', '),
      )
    }
    // Stopping sends what each traced service still queues.
    await Promise.all(Object.values(servers).map((s) => s.stop()))
    const exported = (key: Traced) => ({ spans: sink.spans(`${mode}-${key}`), requests: answered[key] })
    return { mode, rounds, exported: { all: exported('all'), tenth: exported('tenth') } }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()))
  }
}

/**
 * Issue 28's measurement: list 20 on the built service with tracing off, on with every request sampled,
 * and on with a 10 % ratio sampler, three processes driven in turn in each round (memory, then on a
 * database of its own), exporting OTLP/HTTP protobuf to a receiver in this process; and, in a process
 * of its own, the no-op path (@opentelemetry/api without an SDK) that every request takes when off.
 */
export const runTracing = async (
  options: BenchOptions,
  withDatabase: <A>(
    work: (shared: Shared & { readonly databaseUrl: string }, apiKey: string) => Promise<A>,
  ) => Promise<A>,
  log: (line: string) => void,
): Promise<TracingFigures> => {
  const noopNs = measureNoop(options.smoke ? 10_000 : 1_000_000)
  log(`tracing: the no-op path costs ${noopNs.toFixed(0)} ns per request`)
  const sink = await startOtlpSink()
  try {
    const modes: Array<TracingModeFigures> = []
    if (options.modes.includes('memory')) {
      const apiKey = randomBytes(24).toString('base64url')
      modes.push(await runMode('memory', options, { apiKeys: [apiKey] }, apiKey, sink, log))
    }
    if (options.modes.includes('postgres'))
      modes.push(
        await withDatabase((shared, apiKey) => runMode('postgres', options, shared, apiKey, sink, log)),
      )
    return { noopNs, modes }
  } finally {
    await sink.close()
  }
}
