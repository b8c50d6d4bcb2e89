import { ablationSection, runAblation } from './ablation/run-ablation.js'
import { churnSection } from './churn/churn-report.js'
import { runChurn } from './churn/run-churn.js'
import { ensureWrk } from './load.js'
import type { BenchOptions } from './options.js'
import { benchKey, withDatabase } from './own-database.js'
import { show } from './postgres.js'
import { floodSection, runFlood } from './run-flood.js'
import { finishRun, runHeader, type Run } from './run-header.js'
import { pgBouncerSection, runPgBouncer } from './run-pgbouncer.js'
import { profilesSection, runProfiles } from './run-profiles.js'
import { runScale, scaleSection } from './run-scale.js'
import { runTracing } from './run-tracing.js'
import { runWriteCeiling, writeCeilingSection } from './run-write-ceiling.js'
import { tracingSection } from './tracing-report.js'

type Log = (line: string) => void

/** An investigation: `pnpm bench:<name>` runs it and writes `bench/labs/<name>.md`, never RESULTS.md. */
export type Lab = {
  /** The title of its file. */
  readonly title: string
  /** What it is for, in a sentence: the first paragraph of its file. */
  readonly about: string
  /** Its own defaults, from the general ones (smoke or full) before the command line's options. */
  readonly defaults: (base: BenchOptions) => BenchOptions
  readonly usesPostgres: (options: BenchOptions) => boolean
  readonly usesWrk: boolean
  /** Runs it; its sections of Markdown, each under a `##` heading. */
  readonly run: (options: BenchOptions, log: Log) => Promise<string>
}

// Investigations take fewer rounds than the targets: 3 (one in a smoke run).
const threeRounds = (base: BenchOptions): BenchOptions => ({ ...base, rounds: base.smoke ? 1 : 3 })

export const LABS: Readonly<Record<string, Lab>> = {
  flood: {
    title: 'Lab: a flood of keys that are not valid',
    about:
      "Issue 14's flood: what a client with a key sees while random keys flood the service, with the " +
      'limit on failed authentications as shipped and lifted.',
    defaults: (base) => base,
    usesPostgres: () => true,
    usesWrk: true,
    run: async (options, log) => floodSection(await runFlood(options, log)),
  },
  pgbouncer: {
    title: 'Lab: PostgreSQL through PgBouncer',
    about:
      'The service directly on PostgreSQL and through PgBouncer in transaction mode, alternating; then ' +
      "four instances sharing ten server connections. Needs Debian's pgbouncer.",
    defaults: threeRounds,
    usesPostgres: () => true,
    usesWrk: true,
    run: async (options, log) => pgBouncerSection(await runPgBouncer(options, [benchKey()], log)),
  },
  'write-ceiling': {
    title: 'Lab: the write ceiling',
    about:
      'Inserts per second on one database with one instance and with two, at a quarter, once and twice ' +
      "the connections of the targets' run (`--connections`), and what the database's busy connections " +
      'waited for. The targets check 64 connections in RESULTS.md, "Two instances writing".',
    defaults: threeRounds,
    usesPostgres: () => true,
    usesWrk: true,
    run: (options, log) =>
      withDatabase(options, 'writes', async (shared, apiKey) => {
        const c = options.load.connections
        const sections: Array<string> = ['## Write ceiling: inserts per second on one database']
        for (const connections of [...new Set([Math.max(2, Math.round(c / 4)), c, 2 * c])]) {
          const load = { ...options.load, connections }
          const w = await runWriteCeiling({ ...options, load }, shared, apiKey, log)
          sections.push(writeCeilingSection(w, `### ${connections} connections in all`))
        }
        return sections.join('\n\n')
      }),
  },
  scale: {
    title: 'Lab: PostgreSQL with more pets',
    about:
      'The latency of the listings and of get by id, one request at a time, on the service and on ' +
      '`node:http` + `pg`, at each number of pets (`--scale`), and the plans PostgreSQL chose in full.',
    defaults: (base) => (base.smoke ? base : { ...base, scaleSizes: [1000, 100_000, 1_000_000] }),
    usesPostgres: () => true,
    usesWrk: false,
    run: (options, log) =>
      withDatabase(options, 'scale', async (shared, apiKey) =>
        scaleSection(
          await runScale(options, shared, apiKey, log),
          options.probeRequests,
          '## Scale: PostgreSQL with more pets',
          'full',
        ),
      ),
  },
  ablation: {
    title: 'Lab: what each piece of a request costs',
    about:
      'The service in memory driven in-process (no socket, no load generator), with one piece changed at ' +
      'a time, and bare Koa doing the same work: CPU and bytes allocated per request.',
    defaults: threeRounds,
    usesPostgres: () => false,
    usesWrk: false,
    run: async (options, log) => ablationSection(runAblation(options.ablationRequests, options.rounds, log)),
  },
  profiles: {
    title: 'Lab: where the service spends its time',
    about:
      'A CPU profile (`node --cpu-prof`) of the service under each scenario, in each mode (`--modes`), ' +
      'summed by function and by package.',
    defaults: (base) => base,
    usesPostgres: (options) => options.modes.includes('postgres'),
    usesWrk: true,
    run: async (options, log) => {
      const apiKey = benchKey()
      const memory = options.modes.includes('memory')
        ? await runProfiles('memory', options.load, options.seededPets, { apiKeys: [apiKey] }, apiKey, log)
        : []
      const postgres = options.modes.includes('postgres')
        ? await withDatabase(options, 'profiles', (shared, k) =>
            runProfiles('postgres', options.load, options.seededPets, shared, k, log),
          )
        : []
      return profilesSection([...memory, ...postgres])
    },
  },
  tracing: {
    title: 'Lab: what tracing costs',
    about:
      "Issue 28's aims: list 20 with OpenTelemetry tracing off, on with every request sampled, and on with " +
      'a 10 % ratio sampler, in the same run, in memory and on PostgreSQL (`--modes`), the spans exported ' +
      'over OTLP/HTTP protobuf to a receiver on the same machine; and what tracing off leaves on every request.',
    defaults: (base) => ({ ...base, rounds: base.smoke ? 1 : 5 }),
    usesPostgres: (options) => options.modes.includes('postgres'),
    usesWrk: true,
    run: async (options, log) =>
      tracingSection(await runTracing(options, (work) => withDatabase(options, 'tracing', work), log)),
  },
  churn: {
    title: 'Lab: workers killed under load',
    about:
      'The churn soak: `WEB_CONCURRENCY=2` on PostgreSQL, its log piped to `cat`, under load for `--duration` ' +
      'seconds (600; 20 in a smoke run), its workers killed with SIGKILL and SIGTERM: how fast the primary ' +
      "replaces them, whether its memory, descriptors and timers stay flat, the database's sessions, /metrics, " +
      'what the clients saw (every pet answered 201 listed once, no key making two pets) and the log.',
    defaults: (base) => ({ ...base, load: { ...base.load, durationS: base.smoke ? 20 : 600 } }),
    usesPostgres: () => true,
    usesWrk: true,
    run: async (options, log) => churnSection(await runChurn(options, log)),
  },
}

/** The defaults of each lab, for parseOptions. */
export const LAB_DEFAULTS = Object.fromEntries(
  Object.entries(LABS).map(([name, lab]) => [name, lab.defaults]),
)

/** Runs a lab and gives its whole file: the run's header, what the lab is for, its sections. */
export const runLab = async (lab: Lab, options: BenchOptions, run: Run, log: Log): Promise<string> => {
  if (lab.usesWrk) ensureWrk(log)
  const postgresVersion = lab.usesPostgres(options)
    ? await show(options.adminUrl, 'server_version')
    : undefined
  const sections = await lab.run(options, log)
  return [
    runHeader(lab.title, finishRun(run, postgresVersion, lab.usesWrk), options.smoke),
    '',
    `${lab.about} Not a target: the targets are in [RESULTS.md](../RESULTS.md).`,
    '',
    sections,
    '',
  ].join('\n')
}
