import { SQL } from './baselines/pet-store.js'
import { launch, type Launched } from './launch.js'
import { ms, n0, table, x } from './markdown.js'
import type { BenchOptions } from './options.js'
import { median } from './load.js'
import { createDatabase, databaseUrl, dropDatabase, explain, seedPets } from './postgres.js'
import { probeLatency, type Latency } from './probe.js'
import { baselineSpecs, serviceCommand, serviceSpec, type Shared } from './servers.js'

/** A listing whose latency is measured at every size. */
type ScaleQuery = { readonly title: string; readonly path: (pets: number) => string }

const QUERIES: ReadonlyArray<ScaleQuery> = [
  { title: 'list 20', path: () => '/v1/pets?limit=20' },
  { title: 'list 100, status=sold', path: () => '/v1/pets?limit=100&status=sold' },
  { title: 'list 20 from the middle (after=N/2)', path: (n) => `/v1/pets?limit=20&after=${n >> 1}` },
  { title: 'get by id N/2', path: (n) => `/v1/pets/${n >> 1}` },
]

/** Latency of one query on one server with a given number of pets. */
export type ScaleLatency = {
  readonly pets: number
  readonly query: string
  readonly server: string
} & Latency

/** The latencies at every size, and the plans PostgreSQL chose for the service's statements at the largest. */
export type ScaleFigures = {
  readonly latencies: ReadonlyArray<ScaleLatency>
  readonly plans: ReadonlyArray<{ readonly title: string; readonly plan: string }>
  readonly plannedAt: number
  /** Rounds of the measurement: each cell's figures are the medians over them. */
  readonly rounds: number
}

// A size's database, and the service and node:http+pg on it.
type SizeUnderTest = { readonly pets: number; readonly name: string; readonly servers: Array<Launched> }

// The median over the rounds of each figure of a cell.
const overRounds = (rounds: ReadonlyArray<Latency>): Latency => ({
  p50Ms: median(rounds.map((r) => r.p50Ms)),
  p99Ms: median(rounds.map((r) => r.p99Ms)),
  meanMs: median(rounds.map((r) => r.meanMs)),
})

/**
 * Fills a database of its own by SQL for each size and measures the latency of the listings, one request at a
 * time, on the service and on node:http+pg on each, in alternating rounds (every size in each round): a drift of
 * the machine's speed over the run is no growth, as it was when one size was measured minutes after the other
 * (a run once gave 0.26 ms at 1,000 pets and 0.52 at 1,000,000 where the runs before had 0.47 and 0.47). At the
 * largest size it explains the service's statements (their plans must use the indexes).
 */
export const runScale = async (
  options: BenchOptions,
  shared: Shared & { readonly databaseUrl: string },
  apiKey: string,
  log: (line: string) => void,
): Promise<ScaleFigures> => {
  const rounds = Math.max(1, options.rounds)
  const perRound = Math.max(1, Math.ceil(options.probeRequests / rounds))
  const sizes: Array<SizeUnderTest> = []
  const urlOf = (size: SizeUnderTest) => databaseUrl(options.adminUrl, size.name)
  try {
    for (const pets of options.scaleSizes) {
      const size: SizeUnderTest = { pets, name: `${options.databaseName}_scale_${pets}`, servers: [] }
      await createDatabase(options.adminUrl, size.name)
      sizes.push(size)
      await serviceCommand(urlOf(size), 'migrate')
      const started = Date.now()
      await seedPets(urlOf(size), pets)
      log(`scale: ${pets.toLocaleString('en')} pets inserted and analyzed in ${Date.now() - started} ms`)
      const on = { ...shared, databaseUrl: urlOf(size) }
      size.servers.push(
        ...(await Promise.all(
          [serviceSpec(on), baselineSpecs('postgres', on)[0]!].map((spec) => launch(spec)),
        )),
      )
    }
    const cells = new Map<string, Array<Latency>>()
    const keyOf = (pets: number, query: string, server: string) => `${pets}\u0000${query}\u0000${server}`
    for (let round = 1; round <= rounds; round++) {
      for (const query of QUERIES)
        for (const size of sizes)
          for (const server of size.servers) {
            const url = `${server.url}${query.path(size.pets)}`
            const latency = await probeLatency(url, apiKey, perRound, Math.ceil(perRound / 10))
            const key = keyOf(size.pets, query.title, server.name)
            cells.set(key, [...(cells.get(key) ?? []), latency])
          }
      log(`scale: round ${round}/${rounds} measured (${perRound} requests per cell)`)
    }
    const latencies: Array<ScaleLatency> = []
    for (const size of sizes)
      for (const query of QUERIES)
        for (const server of size.servers) {
          const latency = overRounds(cells.get(keyOf(size.pets, query.title, server.name))!)
          latencies.push({ pets: size.pets, query: query.title, server: server.name, ...latency })
          log(
            `scale: ${size.pets.toLocaleString('en')} pets, ${query.title}, ${server.name}: ` +
              `p50 ${latency.p50Ms.toFixed(3)} ms, p99 ${latency.p99Ms.toFixed(3)} ms (medians of ${rounds} rounds)`,
          )
        }
    const largest = sizes.reduce((a, b) => (b.pets > a.pets ? b : a))
    const middle = String(largest.pets >> 1)
    const statements = [
      {
        title: 'list 20 (limit 21: one more tells whether a next page exists)',
        sql: SQL.list,
        values: ['0', 21],
      },
      { title: 'list 100, status=sold', sql: SQL.listByStatus, values: ['sold', '0', 101] },
      { title: 'list 20 from the middle', sql: SQL.list, values: [middle, 21] },
      { title: 'get by id', sql: SQL.find, values: [middle] },
    ]
    const plans = await explain(urlOf(largest), statements)
    return {
      latencies,
      plans: statements.map((s, i) => ({
        title: s.title,
        plan: `${s.sql}\n-- values: ${JSON.stringify(s.values)}\n${plans[i]}`,
      })),
      plannedAt: largest.pets,
      rounds,
    }
  } finally {
    await Promise.all(sizes.flatMap((size) => size.servers.map((s) => s.stop())))
    for (const size of sizes) await dropDatabase(options.adminUrl, size.name)
  }
}

// The scans of a plan, such as "Index Scan using pets_pkey on pets", without their costs.
const scansOf = (plan: string): string =>
  [
    ...plan.matchAll(
      /((?:Parallel )?(?:Index Only Scan|Index Scan|Bitmap Heap Scan|Bitmap Index Scan|Seq Scan)[^(\n]*)/g,
    ),
  ]
    .map((m) => m[1]!.trim())
    .join('; ') || 'no scan'

/**
 * The scale test as Markdown under `heading`: the latencies at each size, and the plans at the
 * largest, in full or as the scans each one chose.
 */
export const scaleSection = (
  scale: ScaleFigures,
  probes: number,
  heading: string,
  plans: 'full' | 'summary',
): string => {
  const sizes = [...new Set(scale.latencies.map((l) => l.pets))]
  const keys = [...new Set(scale.latencies.map((l) => `${l.query}\u0000${l.server}`))]
  return [
    heading,
    '',
    `One request at a time on a kept-alive connection, ${probes} requests per cell after a warm-up, in ` +
      `${scale.rounds} alternating rounds (every size in each: a database of its own per size); latencies in ms, the ` +
      'medians of the rounds. The pets are inserted by SQL (`INSERT … SELECT generate_series`), then `VACUUM ANALYZE`.',
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
    ...(plans === 'full'
      ? [
          `### Plans at ${n0(scale.plannedAt)} pets`,
          '',
          ...scale.plans.flatMap((p) => [`${p.title}:`, '', '```', p.plan, '```', '']),
        ]
      : [
          `The service's statements at ${n0(scale.plannedAt)} pets, by \`EXPLAIN (ANALYZE, BUFFERS)\` ` +
            '(in full: `pnpm bench:scale`):',
          '',
          table(
            ['statement', 'scans'],
            scale.plans.map((p) => [p.title, scansOf(p.plan)]),
            '|---|---|',
          ),
        ]),
  ].join('\n')
}
