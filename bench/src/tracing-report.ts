import { median, type Sample } from './load.js'
import { ms, n0, table, x } from './markdown.js'
import {
  TRACING_AIMS,
  TRACING_VARIANTS,
  type TracingFigures,
  type TracingModeFigures,
} from './run-tracing.js'
import type { Mode } from './servers.js'

type VariantKey = (typeof TRACING_VARIANTS)[number]['key']

const TITLES: Readonly<Record<Mode, string>> = {
  memory: 'Tracing in memory, list 20',
  postgres: 'Tracing on PostgreSQL, list 20',
}

/** The figures as sections under `heading` (RESULTS.md's, or the lab's). */
export const tracingSection = (f: TracingFigures, heading = '## Tracing: what it costs'): string => {
  const offCpu = (m: TracingModeFigures) => median(m.rounds.map((r) => r.off.cpuUsPerRequest))
  const memory = f.modes.find((m) => m.mode === 'memory')
  const sections = [
    heading,
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
      `\`GET /v1/pets?limit=20\`, ${m.rounds.length} rounds, each driving the three processes in turn (each round ` +
        'starting with the next one, and a traced one done sending before the next run). Ratio: the ' +
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
