import { ablationSection } from './ablation/run-ablation.js'
import { median } from './load.js'
import { ms, n0, table, x } from './markdown.js'
import { mib } from './memory.js'
import type { BenchReport } from './run-bench.js'
import type { ModeFigures, ScenarioFigures } from './run-mode.js'
import { profilesSection } from './run-profiles.js'
import { scaleSection } from './run-scale.js'
import { writeCeilingSection } from './run-write-ceiling.js'

/** Where RESULTS.md keeps the text people wrote about a run; a new run keeps it. */
export const NOTES_START = '<!-- notes: written by people, kept by the next run -->'
export const NOTES_END = '<!-- end of notes -->'

const scenarioSection = (figures: ScenarioFigures): string => {
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
  const { title, method, path } = figures.scenario
  return [`### ${title}: \`${method} ${path}\``, '', summary, '', rounds].join('\n')
}

const modeSection = (mode: ModeFigures): string =>
  [
    `## ${mode.mode === 'memory' ? 'In memory' : 'PostgreSQL'}`,
    '',
    'Medians over the rounds. CPU µs/request: user and system CPU time of the server process (all its ' +
      'threads, 10 ms clock) divided by its requests, which other work on the machine skews less than ' +
      'requests/s. Peak RSS: the most resident memory sampled during a run.',
    '',
    ...mode.scenarios.flatMap((s) => [scenarioSection(s), '']),
    table(
      ['server', 'first start ms', 'idle RSS MiB', 'VmHWM at the end MiB'],
      mode.servers.map((s) => [s.name, n0(s.coldStartMs), mib(s.idleRssBytes), mib(s.peakRssBytes)]),
    ),
    ...(mode.notes.length === 0 ? [] : ['', 'Headers that differ:', '', ...mode.notes.map((n) => `- ${n}`)]),
  ].join('\n')

/** The whole report as Markdown: machine, settings, targets, every figure, the plans and the profiles. */
export const renderReport = (report: BenchReport, notes: string): string => {
  const { machine, options } = report
  const servers = [...new Set(report.modes.flatMap((m) => m.servers.map((s) => s.name)))]
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
        ['load generator', report.wrkVersion],
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
      `(${servers.join(', ')}) gets ${options.load.durationS} s at ${options.load.connections} connections from wrk ` +
      '(one thread, a separate process on the same machine). The service is the built `apps/api` at its ' +
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
    ...(report.ablation === undefined ? [] : [ablationSection(report.ablation), '']),
    ...report.modes.flatMap((m) => [modeSection(m), '']),
    '## Cold start and idle memory',
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
    ...(report.writeCeiling === undefined
      ? []
      : [
          writeCeilingSection(report.writeCeiling, '## Write ceiling: inserts per second on one database'),
          '',
        ]),
    ...(report.scale === undefined ? [] : [scaleSection(report.scale, options.probeRequests), '']),
    ...(report.profiles.length === 0 ? [] : [profilesSection(report.profiles)]),
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
