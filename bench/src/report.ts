import { median } from './load.js'
import { mib } from './memory.js'
import type { BenchReport } from './run-bench.js'
import type { ModeFigures, ScenarioFigures } from './run-mode.js'
import type { ScaleFigures } from './run-scale.js'
import { formatProfileSummary } from './summarize-profile.js'

/** Where RESULTS.md keeps the text people wrote about a run; a new run keeps it. */
export const NOTES_START = '<!-- notes: written by people, kept by the next run -->'
export const NOTES_END = '<!-- end of notes -->'

const row = (cells: ReadonlyArray<string | number>) => `| ${cells.join(' | ')} |`
const table = (
  head: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
  align?: string,
) => [row(head), align ?? row(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(row)].join('\n')
const n0 = (n: number) => Math.round(n).toLocaleString('en')
const ms = (n: number) => n.toFixed(2)
const x = (n: number) => `${n.toFixed(2)}×`

const scenarioSection = (figures: ScenarioFigures, servers: ReadonlyArray<string>): string => {
  const [service, ...baselines] = servers
  const of = (name: string, pick: (s: ScenarioFigures['rounds'][number][string] & object) => number) =>
    figures.rounds.map((r) => pick(r[name]!))
  const summary = table(
    ['server', 'requests/s', 'p50 ms', 'p99 ms', 'CPU µs/request', 'peak RSS MiB'],
    servers.map((name) => [
      name,
      n0(median(of(name, (s) => s.requestsPerSecond))),
      ms(median(of(name, (s) => s.p50Ms))),
      ms(median(of(name, (s) => s.p99Ms))),
      n0(median(of(name, (s) => s.cpuUsPerRequest))),
      mib(Math.max(...of(name, (s) => s.peakRssBytes))),
    ]),
  )
  const perRound = (b: string, pick: 'requestsPerSecond' | 'p99Ms') =>
    figures.rounds.map((r) => r[service!]![pick] / r[b]![pick])
  const rounds = table(
    ['ratio service / baseline', ...figures.rounds.map((_, i) => `round ${i + 1}`), 'median'],
    baselines.flatMap((b) =>
      (['requestsPerSecond', 'p99Ms'] as const).map((pick) => {
        const values = perRound(b, pick)
        return [
          `${pick === 'p99Ms' ? 'p99' : 'requests/s'} vs ${b}`,
          ...values.map(x),
          `**${x(median(values))}**`,
        ]
      }),
    ),
  )
  return [
    `### ${figures.scenario.title}: \`${figures.scenario.method} ${figures.scenario.path}\``,
    '',
    summary,
    '',
    rounds,
  ].join('\n')
}

const modeSection = (mode: ModeFigures): string => {
  const names = mode.servers.map((s) => s.name)
  return [
    `## ${mode.mode === 'memory' ? 'In memory' : 'PostgreSQL'}`,
    '',
    'Medians over the rounds. CPU µs/request: user and system CPU time of the server process (all its ' +
      'threads, 10 ms clock) divided by its requests, which other work on the machine skews less than ' +
      'requests/s. Peak RSS: the most resident memory sampled during a run.',
    '',
    ...mode.scenarios.flatMap((s) => [scenarioSection(s, names), '']),
    table(
      ['server', 'first start ms', 'idle RSS MiB', 'VmHWM at the end MiB'],
      mode.servers.map((s) => [s.name, n0(s.coldStartMs), mib(s.idleRssBytes), mib(s.peakRssBytes)]),
    ),
    ...(mode.notes.length === 0 ? [] : ['', 'Headers that differ:', '', ...mode.notes.map((n) => `- ${n}`)]),
  ].join('\n')
}

const scaleSection = (scale: ScaleFigures, probes: number): string => {
  const sizes = [...new Set(scale.latencies.map((l) => l.pets))]
  const keys = [...new Set(scale.latencies.map((l) => `${l.query}\u0000${l.server}`))]
  return [
    '## Scale: PostgreSQL with more pets',
    '',
    `One request at a time on a kept-alive connection, ${probes} requests per cell after a warm-up; latencies in ms.`,
    'The pets are inserted by SQL (`INSERT … SELECT generate_series`), then `VACUUM ANALYZE`.',
    '',
    table(
      ['query', 'server', ...sizes.flatMap((n) => [`p50 at ${n0(n)}`, `p99 at ${n0(n)}`]), 'p50 growth'],
      keys.map((key) => {
        const [query, server] = key.split('\u0000') as [string, string]
        const cells = sizes.map((n) =>
          scale.latencies.find((l) => l.pets === n && l.query === query && l.server === server)!,
        )
        return [
          query,
          server,
          ...cells.flatMap((c) => [ms(c.p50Ms), ms(c.p99Ms)]),
          x(cells[cells.length - 1]!.p50Ms / cells[0]!.p50Ms),
        ]
      }),
    ),
    '',
    `### Plans at ${n0(scale.plannedAt)} pets`,
    '',
    ...scale.plans.flatMap((p) => [`${p.title}:`, '', '```', p.plan, '```', '']),
  ].join('\n')
}

/** The whole report as Markdown: machine, settings, targets, every figure, the plans and the profiles. */
export const renderReport = (report: BenchReport, notes: string): string => {
  const { machine, options } = report
  const load =
    options.load.requests === undefined ? `${options.load.durationS} s` : `${options.load.requests} requests`
  return [
    `# Benchmark results${options.smoke ? ' (smoke run: figures mean nothing)' : ''}`,
    '',
    `Run of \`pnpm bench${options.smoke ? ' --smoke' : ''}\` on ${report.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `${Math.round((report.finishedAt.getTime() - report.startedAt.getTime()) / 1000)} s.`,
    '',
    table(
      ['machine', ''],
      [
        ['CPU', `${machine.cpuModel}, ${machine.cpus} cores (nproc)`],
        ['memory', `${machine.memoryGiB} GiB`],
        ['Node', machine.node],
        ['kernel', machine.kernel],
        ['PostgreSQL', report.postgresVersion ?? 'not used'],
        [
          'load average (1 min)',
          `${report.loadAverage.before.toFixed(2)} at the start, ${report.loadAverage.after.toFixed(2)} at the end`,
        ],
      ],
      '|---|---|',
    ),
    '',
    `Every server holds ${options.seededPets} pets before the scenarios (in memory added through the API, in ` +
      'PostgreSQL inserted by SQL). ' +
      `Each scenario: ${options.warmup === undefined ? 'no warm-up' : 'a warm-up run per server'}, then ${options.rounds} rounds; in each round every server in turn ` +
      `(service, node:http, Fastify) gets ${load} at ${options.load.connections} connections from autocannon, ` +
      'which runs in the benchmark process on the same machine. The service is the built `apps/api` at its ' +
      'shipped log level (info: one JSON line per request, written to /dev/null). Any error, timeout or ' +
      'unexpected status stops the run before anything is written.',
    '',
    '## Targets',
    '',
    table(
      ['target', 'goal', 'measured', 'met'],
      report.targets.map((t) => [t.what, t.goal, t.measured, t.met ? 'yes' : '**no**']),
      '|---|---|---:|---|',
    ),
    '',
    NOTES_START,
    notes.trim() === '' ? '(No notes yet.)' : notes.trim(),
    NOTES_END,
    '',
    ...report.modes.flatMap((m) => [modeSection(m), '']),
    '## Cold start and idle memory',
    '',
    'Spawn to the first 200 from `/healthz` (polled every 2 ms), in memory; idle RSS half a second later.',
    '',
    table(
      ['server', 'median ms', 'samples ms', 'idle RSS MiB'],
      report.coldStarts.map((c) => [
        c.name,
        n0(c.medianMs),
        c.samplesMs.map(n0).join(', '),
        mib(c.idleRssBytes),
      ]),
    ),
    '',
    ...(report.scale === undefined ? [] : [scaleSection(report.scale, options.probeRequests), '']),
    ...(report.profiles.length === 0
      ? []
      : [
          '## Where the service spends its time',
          '',
          '`node --cpu-prof` on a separate service process per scenario (never a measured one), summed by ' +
            'self time; samples taken before the load (start-up, seeding) are left out. Summarize any ' +
            'profile with `node bench/dist/summarize-profile.js FILE.cpuprofile [COUNT] [SKIP_MS]`.',
          '',
          ...report.profiles.flatMap((p) => [
            `### ${p.mode}, ${p.scenario}`,
            '',
            formatProfileSummary(p.summary),
            '',
          ]),
        ]),
  ].join('\n')
}

/** The notes of an earlier RESULTS.md, to carry over into the next. */
export const notesOf = (markdown: string): string => {
  const start = markdown.indexOf(NOTES_START)
  const end = markdown.indexOf(NOTES_END)
  if (start === -1 || end < start) return ''
  const notes = markdown.slice(start + NOTES_START.length, end).trim()
  return notes === '(No notes yet.)' ? '' : notes
}
