import { startTestPgBouncer, type TestPgBouncer } from '@pets/adapters-postgres/testing'
import pg from 'pg'
import { launch, type Launched } from './launch.js'
import { drive, median, type Load, type Sample } from './load.js'
import { ms, n0, table, x } from './markdown.js'
import { answeredOnce } from './probe.js'
import type { BenchOptions } from './options.js'
import { createDatabase, databaseUrl, dropDatabase, seedPets } from './postgres.js'
import { scenariosFor, type Scenario } from './scenarios.js'
import { serviceCommand, serviceSpec } from './servers.js'

/** The service on PostgreSQL directly and through PgBouncer in transaction mode, and many processes on few server connections. */
export type PgBouncerFigures = {
  /** Server connections PgBouncer holds for the database (`default_pool_size`). */
  readonly serverConnections: number
  /** Per scenario, each round's sample directly and through PgBouncer. */
  readonly scenarios: ReadonlyArray<{
    readonly scenario: Scenario
    readonly rounds: ReadonlyArray<{ readonly direct: Sample; readonly pooled: Sample }>
  }>
  /** `processes` service processes, each with a pool of `poolSize`, all driven at once through PgBouncer. */
  readonly crowd: {
    readonly processes: number
    readonly poolSize: number
    readonly connections: number
    readonly runs: ReadonlyArray<{ readonly scenario: Scenario; readonly samples: ReadonlyArray<Sample> }>
    /** The most server connections of PgBouncer seen on the database while it was driven. */
    readonly mostServerConnections: number
  }
}

const SERVER_CONNECTIONS = 10
const PROCESSES = 4
const POOL_SIZE = 10

// Counts the connections PgBouncer holds on the database, every 20 ms, until stopped.
const watchServerConnections = (directUrl: string) => {
  const client = new pg.Client({ connectionString: directUrl, application_name: 'bench-watch' })
  client.on('error', () => {})
  let most = 0
  let stopped = false
  const done = (async () => {
    await client.connect()
    while (!stopped) {
      const { rows } = await client.query<{ n: number }>(
        // Every session on the database but this one and the services' own LISTEN connections (direct).
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name NOT LIKE '%-api-keys'`,
      )
      most = Math.max(most, rows[0]?.n ?? 0)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await client.end()
  })()
  return {
    stop: async () => {
      stopped = true
      await done
      return most
    },
  }
}

/**
 * On a database of its own: the service directly on PostgreSQL (A) and through PgBouncer in
 * transaction mode (B), each with DATABASE_DIRECT_URL on PostgreSQL, driven in turn (A B A B …)
 * with every PostgreSQL scenario; then 4 processes with a pool of 10 each, all driven at once,
 * through a PgBouncer that holds 10 server connections. Any request not answered as expected makes
 * the run invalid (drive). Drops the database and stops PgBouncer at the end.
 */
export const runPgBouncer = async (
  options: BenchOptions,
  apiKeys: ReadonlyArray<string>,
  log: (line: string) => void,
): Promise<PgBouncerFigures> => {
  const name = `${options.databaseName}_pgbouncer`
  await createDatabase(options.adminUrl, name)
  const direct = databaseUrl(options.adminUrl, name)
  const apiKey = apiKeys[0]!
  let bouncer: TestPgBouncer | undefined
  const servers: Array<Launched> = []
  try {
    bouncer = await startTestPgBouncer(options.adminUrl, { ownProcess: true, poolSize: SERVER_CONNECTIONS })
    const pooled = bouncer.through(direct)
    await serviceCommand(direct, 'migrate')
    await seedPets(direct, options.seededPets)
    const spec = (url: string, label: string, env: Record<string, string> = {}) => {
      const base = serviceSpec({ apiKeys, databaseUrl: url })
      return {
        ...base,
        name: label,
        env: { ...base.env, DATABASE_DIRECT_URL: direct, MIGRATE_ON_START: 'false', ...env },
      }
    }
    const [a, b] = await Promise.all([
      launch(spec(direct, 'direct')),
      launch(spec(pooled, 'through PgBouncer')),
    ])
    servers.push(a!, b!)
    const scenarios: Array<PgBouncerFigures['scenarios'][number]> = []
    for (const scenario of scenariosFor(options.seededPets)) {
      if (options.warmup !== undefined)
        for (const s of [a!, b!]) await drive(s, scenario, options.warmup, apiKey)
      const rounds: Array<{ direct: Sample; pooled: Sample }> = []
      for (let round = 1; round <= options.rounds; round++) {
        const d = await drive(a!, scenario, options.load, apiKey)
        const p = await drive(b!, scenario, options.load, apiKey)
        rounds.push({ direct: d, pooled: p })
        log(
          `pgbouncer ${scenario.title} round ${round}/${options.rounds}: direct ${n0(d.requestsPerSecond)} req/s, ` +
            `through PgBouncer ${n0(p.requestsPerSecond)} req/s`,
        )
      }
      scenarios.push({ scenario, rounds })
    }
    await Promise.all(servers.splice(0).map((s) => s.stop()))

    const crowd = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        launch(spec(pooled, `through PgBouncer ${i + 1}`, { DATABASE_POOL_SIZE: String(POOL_SIZE) })),
      ),
    )
    servers.push(...crowd)
    const share: Load = {
      ...options.load,
      connections: Math.max(1, Math.round(options.load.connections / PROCESSES)),
      // At least 2 s: in CI's smoke (then 0.5 s) beside every package's tests, one of the four answered no create
      // in its 0.5 s twice, though each had answered one before (its commits waiting on a busy disk).
      durationS: Math.max(2, options.load.durationS),
    }
    const watch = watchServerConnections(direct)
    const runs: Array<PgBouncerFigures['crowd']['runs'][number]> = []
    let mostServerConnections: number
    try {
      for (const scenario of scenariosFor(options.seededPets).filter((s) =>
        ['list-20', 'create'].includes(s.key),
      )) {
        // Each process answers one first, then all are timed at once (CI's smoke once saw a process
        // answer no create in its 0.5 s, its first connections through PgBouncer still opening).
        await Promise.all(crowd.map((s) => answeredOnce(s, scenario, apiKey)))
        for (let round = 1; round <= options.rounds; round++) {
          const samples = await Promise.all(crowd.map((s) => drive(s, scenario, share, apiKey)))
          runs.push({ scenario, samples })
          log(
            `pgbouncer ${PROCESSES} processes × pool ${POOL_SIZE}, ${scenario.title} round ${round}/${options.rounds}: ` +
              `${n0(samples.reduce((sum, s) => sum + s.requestsPerSecond, 0))} req/s, every request answered`,
          )
        }
      }
    } finally {
      mostServerConnections = await watch.stop()
    }
    return {
      serverConnections: SERVER_CONNECTIONS,
      scenarios,
      crowd: {
        processes: PROCESSES,
        poolSize: POOL_SIZE,
        connections: options.load.connections,
        runs,
        mostServerConnections,
      },
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    await bouncer?.stop()
    await dropDatabase(options.adminUrl, name)
  }
}

/** The figures as a section of RESULTS.md. */
export const pgBouncerSection = (f: PgBouncerFigures): string => {
  const rate = (samples: ReadonlyArray<Sample>) => samples.reduce((sum, s) => sum + s.requestsPerSecond, 0)
  const crowdRows = [...new Set(f.crowd.runs.map((r) => r.scenario.key))].map((key) => {
    const runs = f.crowd.runs.filter((r) => r.scenario.key === key)
    const all = runs.flatMap((r) => r.samples)
    return [
      runs[0]!.scenario.title,
      n0(median(runs.map((r) => rate(r.samples)))),
      ms(median(all.map((s) => s.p50Ms))),
      ms(median(all.map((s) => s.p99Ms))),
      n0(all.reduce((sum, s) => sum + s.requests, 0)),
    ]
  })
  return [
    '## PostgreSQL through PgBouncer (transaction mode)',
    '',
    `The built service on PostgreSQL directly, and through Debian's PgBouncer in transaction mode ` +
      `(\`default_pool_size\` ${f.serverConnections}; DATABASE_DIRECT_URL on PostgreSQL for LISTEN), driven in turn, ` +
      `${f.scenarios[0]?.rounds.length ?? 0} rounds. Behind the pooler each statement travels with its timeouts ` +
      '(`set_config(…, true)`) in one simple-protocol message. Medians over the rounds.',
    '',
    table(
      [
        'scenario',
        'direct req/s',
        'PgBouncer req/s',
        'PgBouncer / direct',
        'p50 ms direct',
        'p50 ms PgBouncer',
        'p99 ms direct',
        'p99 ms PgBouncer',
      ],
      f.scenarios.map(({ scenario, rounds }) => [
        scenario.title,
        n0(median(rounds.map((r) => r.direct.requestsPerSecond))),
        n0(median(rounds.map((r) => r.pooled.requestsPerSecond))),
        x(median(rounds.map((r) => r.pooled.requestsPerSecond / r.direct.requestsPerSecond))),
        ms(median(rounds.map((r) => r.direct.p50Ms))),
        ms(median(rounds.map((r) => r.pooled.p50Ms))),
        ms(median(rounds.map((r) => r.direct.p99Ms))),
        ms(median(rounds.map((r) => r.pooled.p99Ms))),
      ]),
    ),
    '',
    `### ${f.crowd.processes} processes × pool ${f.crowd.poolSize} through ${f.serverConnections} server connections`,
    '',
    `${f.crowd.processes} service processes with DATABASE_POOL_SIZE=${f.crowd.poolSize} (${f.crowd.processes * f.crowd.poolSize} client ` +
      `connections to PgBouncer), driven at once with ${f.crowd.connections} HTTP connections in all; PgBouncer holds ` +
      `${f.serverConnections} server connections (at most ${f.crowd.mostServerConnections} seen on PostgreSQL). ` +
      'Every request was answered with its expected status (a run with any other answer is refused).',
    '',
    table(['scenario', 'req/s, all processes', 'p50 ms', 'p99 ms', 'requests answered'], crowdRows),
  ].join('\n')
}
