import { median } from './load.js'
import { ms, n0, slug, table, x } from './markdown.js'
import { mib } from './memory.js'
import { runHeader } from './run-header.js'
import type { ModeFigures, ScenarioFigures } from './run-mode.js'
import { scaleSection } from './run-scale.js'
import type { SuiteReport } from './run-suite.js'
import { writeCeilingSection } from './run-write-ceiling.js'
import { scenariosFor, STORED_KEY_SCENARIO } from './scenarios.js'
import { tracingSection } from './tracing-report.js'
import type { Mode } from './servers.js'

/**
 * The headings of RESULTS.md, whose anchors (`bench/RESULTS.md#targets`, …) code and documents
 * point to: change one only with every pointer to it.
 */
export const HEADINGS = {
  targets: '## Targets',
  memory: '## In memory',
  postgres: '## PostgreSQL',
  coldStarts: '## Cold start and idle memory',
  write: '## Two instances writing',
  growth: '## Growth',
  tracing: '## Tracing: what it costs',
} as const

const MODE_TITLE: Readonly<Record<Mode, string>> = { memory: 'In memory', postgres: 'PostgreSQL' }

/** The heading of a scenario's figures in a mode, such as `### PostgreSQL, list-20`. */
export const scenarioHeading = (mode: Mode, key: string): string => `### ${MODE_TITLE[mode]}, ${key}`

/** Every anchor of a full RESULTS.md, such as `two-instances-writing` or `postgresql-create`. */
export const SUITE_ANCHORS: ReadonlyArray<string> = [
  ...Object.values(HEADINGS).map(slug),
  ...scenariosFor(1).map((s) => slug(scenarioHeading('memory', s.key))),
  ...[...scenariosFor(1), STORED_KEY_SCENARIO].map((s) => slug(scenarioHeading('postgres', s.key))),
]

const scenarioSection = (mode: Mode, figures: ScenarioFigures): string => {
  const [subject, ...others] = figures.contestants
  type Pick = (s: ScenarioFigures['rounds'][number][string] & object) => number
  const of = (name: string, pick: Pick) => figures.rounds.map((r) => pick(r[name]!))
  const summary = table(
    ['server', 'requests/s', 'p50 ms', 'p99 ms', 'CPU µs/request', 'peak RSS MiB'],
    figures.contestants.map((name) => [
      name,
      n0(median(of(name, (s) => s.requestsPerSecond))),
      ms(median(of(name, (s) => s.p50Ms))),
      ms(median(of(name, (s) => s.p99Ms))),
      n0(median(of(name, (s) => s.cpuUsPerRequest))),
      mib(Math.max(...of(name, (s) => s.peakRssBytes))),
    ]),
  )
  const rounds = table(
    [`ratio ${subject} / other`, ...figures.rounds.map((_, i) => `round ${i + 1}`), 'median'],
    others.flatMap((other) =>
      (['requestsPerSecond', 'p99Ms'] as const).map((pick) => {
        const values = figures.rounds.map((r) => r[subject!]![pick] / r[other]![pick])
        return [
          `${pick === 'p99Ms' ? 'p99' : 'requests/s'} vs ${other}`,
          ...values.map(x),
          `**${x(median(values))}**`,
        ]
      }),
    ),
  )
  const { key, title, method, path } = figures.scenario
  return [scenarioHeading(mode, key), '', `${title}: \`${method} ${path}\``, '', summary, '', rounds].join(
    '\n',
  )
}

const modeSection = (mode: ModeFigures): string =>
  [
    mode.mode === 'memory' ? HEADINGS.memory : HEADINGS.postgres,
    '',
    'Medians over the rounds. CPU µs/request: user and system CPU time of the server process (all its ' +
      'threads, 10 ms clock) divided by its requests, which other work on the machine skews less than ' +
      'requests/s. Peak RSS: the most resident memory sampled during a run.',
    '',
    ...mode.scenarios.flatMap((s) => [scenarioSection(mode.mode, s), '']),
    table(
      ['server', 'first start ms', 'idle RSS MiB', 'VmHWM at the end MiB'],
      mode.servers.map((s) => [s.name, n0(s.coldStartMs), mib(s.idleRssBytes), mib(s.peakRssBytes)]),
    ),
    ...(mode.notes.length === 0 ? [] : ['', 'Headers that differ:', '', ...mode.notes.map((n) => `- ${n}`)]),
  ].join('\n')

/** RESULTS.md, whole: the run, the targets, every figure they were checked on. */
export const renderSuite = (report: SuiteReport): string => {
  const { options } = report
  const servers = [...new Set(report.modes.flatMap((m) => m.servers.map((s) => s.name)))]
  const met = report.targets.filter((t) => t.met).length
  return [
    runHeader('Benchmark results: the targets', report.run, options.smoke),
    '',
    `Every server holds ${options.seededPets} pets before the scenarios (in memory added through the API, in ` +
      'PostgreSQL inserted by SQL), and answers each scenario once alike before it is measured. ' +
      `Each scenario: ${options.warmup === undefined ? 'no warm-up' : 'a warm-up run per server'}, then ${options.rounds} round${options.rounds === 1 ? '' : 's'}; in each round every server in turn ` +
      `(${servers.join(', ')}) gets ${options.load.durationS} s at ${options.load.connections} connections from wrk ` +
      '(one thread, a separate process on the same machine). The service is the built `apps/api` at its ' +
      'shipped log level (info: one JSON line per request, written to /dev/null). Any error, timeout or ' +
      'unexpected status stops the run before anything is written. Investigations are not here: ' +
      '`pnpm bench:<name>` writes `bench/labs/<name>.md` (bench/README.md).',
    '',
    HEADINGS.targets,
    '',
    `${met} of ${report.targets.length} met.`,
    '',
    table(
      ['target', 'goal', 'measured', 'met'],
      report.targets.map((t) => [t.what, t.goal, t.measured, t.met ? 'yes' : '**no**']),
      '|---|---|---:|---|',
    ),
    '',
    ...report.modes.flatMap((m) => [modeSection(m), '']),
    HEADINGS.coldStarts,
    '',
    'Spawn to the first 200 from `/healthz` (polled every 2 ms), one process at a time: the first start of ' +
      'each server in its mode, then fresh processes; idle RSS half a second later. On PostgreSQL the schema ' +
      'is there already (`animal-store migrate` runs first).',
    '',
    table(
      ['mode', 'server', 'median ms', 'samples ms', 'idle RSS MiB'],
      report.coldStarts.map((c) => [
        c.mode,
        c.name,
        n0(c.medianMs),
        c.samplesMs.map(n0).join(', '),
        mib(c.idleRssBytes),
      ]),
    ),
    '',
    ...(report.write === undefined ? [] : [writeCeilingSection(report.write, HEADINGS.write), '']),
    ...(report.scale === undefined
      ? []
      : [scaleSection(report.scale, options.probeRequests, HEADINGS.growth, 'summary'), '']),
    tracingSection(report.tracing, HEADINGS.tracing),
    '',
  ].join('\n')
}
