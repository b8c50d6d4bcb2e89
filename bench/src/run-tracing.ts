import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { launch, type Launched } from './launch.js'
import { drive, median, type Sample } from './load.js'
import { ms, n0, table, x } from './markdown.js'
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
      for (const { key } of TRACING_VARIANTS) {
        samples[key] = await drive(servers[key]!, scenario, options.load, apiKey)
        answered[key] += samples[key].requests
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

const TITLES: Readonly<Record<Mode, string>> = {
  memory: 'In memory, list 20',
  postgres: 'PostgreSQL, list 20',
}

/** The figures as the lab's sections. */
export const tracingSection = (f: TracingFigures): string => {
  const offCpu = (m: TracingModeFigures) => median(m.rounds.map((r) => r.off.cpuUsPerRequest))
  const memory = f.modes.find((m) => m.mode === 'memory')
  const sections = [
    '## Tracing: what it costs',
    '',
    '### Off: the no-op path',
    '',
    `With no \`OTEL_*\` configuration no SDK module is loaded (apps/api/test/lazy-loading.e2e.test.ts); what ` +
      `each request still does is its calls of @opentelemetry/api's no-op (request-span.ts of ` +
      `adapters-http: extract, start, ids, end): **${f.noopNs.toFixed(0)} ns** per request, in a process of its own ` +
      '(the best of five runs of a million)' +
      (memory === undefined
        ? '.'
        : `: ${((f.noopNs / 1000 / offCpu(memory)) * 100).toFixed(2)} % of the ${offCpu(memory).toFixed(0)} µs ` +
          'of CPU a list 20 in memory costs with tracing off (below).'),
  ]
  for (const m of f.modes) {
    const ratio = (key: VariantKey, of: (s: Sample) => number) =>
      median(m.rounds.map((r) => of(r[key]) / of(r.off)))
    const cpu = (key: VariantKey) => median(m.rounds.map((r) => r[key].cpuUsPerRequest))
    sections.push(
      '',
      `### ${TITLES[m.mode]}`,
      '',
      `\`GET /v1/pets?limit=20\`, ${m.rounds.length} rounds, each driving the three processes in turn. Ratio: the ` +
        "median of the rounds' own ratios to tracing off. CPU: the server process's user and system time per request.",
      '',
      table(
        [
          'variant',
          'requests/s',
          'on / off',
          'aim',
          'p50 ms',
          'p99 ms',
          'CPU µs/request',
          'spans exported / requests',
        ],
        TRACING_VARIANTS.map(({ key, title }) => {
          const aim = key === 'off' ? undefined : TRACING_AIMS[m.mode][key]
          const got = ratio(key, (s) => s.requestsPerSecond)
          const exported = key === 'off' ? undefined : m.exported[key]
          return [
            title,
            n0(median(m.rounds.map((r) => r[key].requestsPerSecond))),
            key === 'off' ? '' : x(got),
            aim === undefined ? '' : `≥ ${x(aim)}: ${got >= aim ? 'met' : '**missed**'}`,
            ms(median(m.rounds.map((r) => r[key].p50Ms))),
            ms(median(m.rounds.map((r) => r[key].p99Ms))),
            cpu(key).toFixed(0),
            exported === undefined
              ? ''
              : `${n0(exported.spans)} / ${n0(exported.requests)} (${(exported.spans / exported.requests).toFixed(3)})`,
          ]
        }),
      ),
    )
  }
  return sections.join('\n')
}
