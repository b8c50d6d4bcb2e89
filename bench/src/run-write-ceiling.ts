import { launch, type Launched } from './launch.js'
import { drive, median, type Load, type Sample } from './load.js'
import { answeredOnce } from './probe.js'
import { ms, n0, table, x } from './markdown.js'
import type { BenchOptions } from './options.js'
import { addWaits, lockShare, NO_WAITS, sampleWaits, show, type Waits } from './postgres.js'
import { scenariosFor } from './scenarios.js'
import { serviceSpec, type Shared } from './servers.js'

const total = (samples: ReadonlyArray<Sample>) => samples.reduce((sum, s) => sum + s.requestsPerSecond, 0)
const percent = (share: number) => `${(share * 100).toFixed(0)} %`

/** Inserts per second through the service, with one instance and with two on the same database. */
export type WriteCeiling = {
  /** Connections in all: one process gets them all, each of two gets half. */
  readonly connections: number
  readonly synchronousCommit: string
  readonly rounds: ReadonlyArray<{ readonly one: Sample; readonly two: ReadonlyArray<Sample> }>
  /** What the database's busy connections waited for, with one and with two processes. */
  readonly waits: { readonly one: Waits; readonly two: Waits }
}

/**
 * Starts two service instances on one database and drives POST /v1/pets: in each round, first
 * one instance with every connection, then both at once with half each; meanwhile samples what
 * the database's connections wait for (the id-ordering advisory lock, the WAL flush of commits).
 */
export const runWriteCeiling = async (
  options: BenchOptions,
  shared: Shared & { readonly databaseUrl: string },
  apiKey: string,
  log: (line: string) => void,
): Promise<WriteCeiling> => {
  const create = scenariosFor(1).find((s) => s.key === 'create')!
  const half: Load = { ...options.load, connections: Math.max(1, Math.round(options.load.connections / 2)) }
  const servers: Array<Launched> = []
  const rounds: Array<WriteCeiling['rounds'][number]> = []
  const waits = { one: NO_WAITS, two: NO_WAITS }
  try {
    servers.push(
      ...(await Promise.all(
        ['service A', 'service B'].map((name) => launch({ ...serviceSpec(shared), name })),
      )),
    )
    const [a, b] = servers as [Launched, Launched]
    // Each opens its pool on a first create, not in a timed run: the smoke's runs are short.
    await Promise.all(servers.map((s) => answeredOnce(s, create, apiKey)))
    if (options.warmup !== undefined)
      await Promise.all(servers.map((s) => drive(s, create, options.warmup!, apiKey)))
    for (let round = 1; round <= options.rounds; round++) {
      let sampler = sampleWaits(shared.databaseUrl)
      const one = await drive(a, create, options.load, apiKey)
      waits.one = addWaits(waits.one, await sampler.stop())
      sampler = sampleWaits(shared.databaseUrl)
      const two = await Promise.all([drive(a, create, half, apiKey), drive(b, create, half, apiKey)])
      waits.two = addWaits(waits.two, await sampler.stop())
      rounds.push({ one, two })
      log(
        `writes at ${options.load.connections} connections, round ${round}/${options.rounds}: one instance ` +
          `${n0(total([one]))} inserts/s, two ${n0(total(two))} inserts/s (${x(total(two) / total([one]))}); ` +
          `busy samples waiting on a Lock: ${percent(lockShare(waits.one))} with one, ${percent(lockShare(waits.two))} with two`,
      )
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
  const synchronousCommit = await show(shared.databaseUrl, 'synchronous_commit')
  return { connections: options.load.connections, synchronousCommit, rounds, waits }
}

/** What the targets read: inserts/s of one and two instances, their ratio, the lock waits of each. */
export const writeSummary = (w: WriteCeiling) => ({
  one: median(w.rounds.map((r) => total([r.one]))),
  two: median(w.rounds.map((r) => total(r.two))),
  /** The median over the rounds of two instances' inserts/s over one's. */
  ratio: median(w.rounds.map((r) => total(r.two) / total([r.one]))),
  lockOne: lockShare(w.waits.one),
  lockTwo: lockShare(w.waits.two),
})

/**
 * The figures as Markdown under `heading` (a Markdown heading line): inserts/s of one and two
 * instances, by round, and the share of the busy connections' samples in each wait.
 */
export const writeCeilingSection = (w: WriteCeiling, heading: string): string => {
  type Round = WriteCeiling['rounds'][number]
  const half = Math.max(1, Math.round(w.connections / 2))
  const summary = writeSummary(w)
  const line = (
    instances: string,
    connections: string,
    pick: (r: Round) => ReadonlyArray<Sample>,
    waits: Waits,
  ) => {
    const of = (f: (s: Sample) => number) => median(w.rounds.flatMap((r) => pick(r).map(f)))
    return [
      instances,
      connections,
      n0(median(w.rounds.map((r) => total(pick(r))))),
      ms(of((s) => s.p50Ms)),
      ms(of((s) => s.p99Ms)),
      n0(of((s) => s.cpuUsPerRequest)),
      n0(waits.busy),
      percent(lockShare(waits)),
    ]
  }
  const share = ({ busy, busyIn }: Waits, wait: string) =>
    busy === 0 ? '-' : percent((busyIn[wait] ?? 0) / busy)
  const waits = [...new Set([...Object.keys(w.waits.one.busyIn), ...Object.keys(w.waits.two.busyIn)])].sort(
    (a, b) => (w.waits.two.busyIn[b] ?? 0) - (w.waits.two.busyIn[a] ?? 0),
  )
  return [
    heading,
    '',
    `\`POST /v1/pets\` through the built service on PostgreSQL (synchronous_commit ${w.synchronousCommit}), ` +
      `${w.rounds.length} round${w.rounds.length === 1 ? '' : 's'}, alternating: one instance with ${w.connections} wrk connections, then two ` +
      `instances on the same database at once with ${half} each. Inserts/s of both together; latencies and CPU ` +
      `per instance; medians over the rounds. Two instances / one: **${x(summary.ratio)}** ` +
      `(rounds: ${w.rounds.map((r) => x(total(r.two) / total([r.one]))).join(', ')}).`,
    '',
    table(
      [
        'instances',
        'connections',
        'inserts/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/insert',
        'busy samples',
        'waiting on a Lock',
      ],
      [
        line('1', String(w.connections), (r) => [r.one], w.waits.one),
        line('2', `2 × ${half}`, (r) => r.two, w.waits.two),
      ],
    ),
    '',
    "Busy samples: the database's active connections seen in `pg_stat_activity`, polled every 20 ms during " +
      'the runs, one sample per connection and poll. Their share in each wait (`Lock:advisory`: waiting ' +
      'for an advisory lock, such as the one that orders ids; `IO:WALSync`, `LWLock:WALWrite`: a commit ' +
      'waiting for the WAL to reach the disk; `CPU`: running):',
    '',
    table(
      ['wait', 'busy samples, 1 instance', 'busy samples, 2 instances'],
      waits.map((wait) => [wait, share(w.waits.one, wait), share(w.waits.two, wait)]),
    ),
  ].join('\n')
}
