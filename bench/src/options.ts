import { parseArgs } from 'node:util'
import type { Load } from './load.js'
import { DEFAULT_ADMIN_URL } from './postgres.js'
import type { Mode } from './servers.js'

/** Everything a benchmark run is told. */
export type BenchOptions = {
  readonly smoke: boolean
  readonly modes: ReadonlyArray<Mode>
  /** Rounds per scenario; each round drives every server once, in turn (A B C A B C …). */
  readonly rounds: number
  /** Pets every server holds before the scenarios: through the API in memory, by SQL in PostgreSQL. */
  readonly seededPets: number
  readonly load: Load
  /** A run per server and scenario before the rounds, not reported; none when undefined. */
  readonly warmup: Load | undefined
  /** Numbers of pets for the growth targets (and `pnpm bench:scale`); none skips them. */
  readonly scaleSizes: ReadonlyArray<number>
  readonly probeRequests: number
  /** Cold starts of each server to measure (its first start in the mode, then fresh processes). */
  readonly coldStarts: number
  /** In-process requests per variant and run of the ablation (`pnpm bench:ablation`). */
  readonly ablationRequests: number
  /** A PostgreSQL connection with the right to create databases. */
  readonly adminUrl: string
  /** The database the run makes for itself, and drops at the end. */
  readonly databaseName: string
  /** Where the report goes; undefined prints only. */
  readonly out: string | undefined
}

/** The options of `pnpm bench --smoke`: every step once, 0.25 s of load per run, in seconds. */
export const smokeOptions = (env: NodeJS.ProcessEnv): BenchOptions => ({
  smoke: true,
  modes: ['memory', 'postgres'],
  rounds: 1,
  seededPets: 200,
  load: { connections: 8, durationS: 0.25 },
  warmup: undefined,
  scaleSizes: [1000, 10_000],
  probeRequests: 20,
  coldStarts: 1,
  ablationRequests: 200,
  adminUrl: env['BENCH_DATABASE_URL'] || DEFAULT_ADMIN_URL,
  databaseName: 'pets_bench_smoke',
  out: undefined,
})

/** The options of a full run of the targets (`pnpm bench`): about twelve minutes on two cores. */
export const fullOptions = (env: NodeJS.ProcessEnv, out: string): BenchOptions => ({
  smoke: false,
  modes: ['memory', 'postgres'],
  rounds: 5,
  seededPets: 1000,
  load: { connections: 64, durationS: 3 },
  warmup: { connections: 64, durationS: 1 },
  scaleSizes: [1000, 1_000_000],
  probeRequests: 2000,
  coldStarts: 5,
  ablationRequests: 20_000,
  adminUrl: env['BENCH_DATABASE_URL'] || DEFAULT_ADMIN_URL,
  databaseName: 'pets_bench',
  out,
})

const usage = (
  labs: ReadonlyArray<string>,
) => `usage: pnpm bench [--smoke] [--rounds N] [--duration S] [--connections N]
                  [--modes memory,postgres] [--scale 1000,1000000] [--out FILE]
       pnpm bench:LAB [the same options], LAB one of ${labs.join(', ')}
PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_ADMIN_URL}) must be allowed to create databases.`

/** What the command line asks for: the targets (no name), or a lab by name. */
export type Command = { readonly lab: string | undefined; readonly options: BenchOptions }

/**
 * Reads the command line: an optional lab name, then options. A full run writes `outOf(lab)`, a
 * smoke run writes only with --out; `labs` gives each lab its defaults before the options apply.
 */
export const parseOptions = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  outOf: (lab: string | undefined) => string,
  labs: Readonly<Record<string, (base: BenchOptions) => BenchOptions>> = {},
): Command | string => {
  const USAGE = usage(Object.keys(labs))
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      smoke: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      modes: { type: 'string' },
      scale: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) return USAGE
  const [lab, ...rest] = positionals
  if (rest.length > 0 || (lab !== undefined && labs[lab] === undefined))
    throw new Error(`unknown lab or argument: ${positionals.join(' ')}\n${USAGE}`)
  const general = values.smoke ? smokeOptions(env) : fullOptions(env, outOf(lab))
  const base = lab === undefined ? general : labs[lab]!(general)
  const count = (name: string, raw: string | undefined, fallback: number, min: number) => {
    if (raw === undefined) return fallback
    const n = Number(raw)
    if (!Number.isFinite(n) || n < min)
      throw new Error(`--${name} must be a number of at least ${min}\n${USAGE}`)
    return n
  }
  const modes = (values.modes?.split(',') ?? base.modes) as ReadonlyArray<Mode>
  if (modes.some((m) => m !== 'memory' && m !== 'postgres'))
    throw new Error(`--modes takes memory and/or postgres\n${USAGE}`)
  const duration = count('duration', values.duration, base.load.durationS, 0.1)
  const options: BenchOptions = {
    ...base,
    modes,
    rounds: Math.round(count('rounds', values.rounds, base.rounds, 1)),
    load: {
      connections: Math.round(count('connections', values.connections, base.load.connections, 1)),
      durationS: duration,
    },
    scaleSizes:
      values.scale === undefined ? base.scaleSizes : values.scale.split(',').filter(Boolean).map(Number),
    out: values.out ?? base.out,
  }
  if (options.scaleSizes.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`--scale takes numbers of pets, such as 1000,1000000\n${USAGE}`)
  return { lab, options }
}
