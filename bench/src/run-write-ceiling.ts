import { launch, type Launched } from './launch.js'
import { drive, median, type Load, type Sample } from './load.js'
import { ms, n0, table, x } from './markdown.js'
import type { BenchOptions } from './options.js'
import { sampleWaits, show, type Waits } from './postgres.js'
import { scenariosFor } from './scenarios.js'
import { serviceSpec, type Shared } from './servers.js'

/** Inserts per second through the service, with one process and with two on the same database. */
export type WriteCeiling = {
  /** Connections in all: one process gets them all, each of two gets half. */
  readonly connections: number
  readonly synchronousCommit: string
  readonly rounds: ReadonlyArray<{ readonly one: Sample; readonly two: ReadonlyArray<Sample> }>
  /** What the database's busy connections waited for, with one and with two processes. */
  readonly waits: { readonly one: Waits; readonly two: Waits }
}

const add = (a: Waits, b: Waits): Waits => {
  const seen = { ...a.seen }
  for (const [wait, n] of Object.entries(b.seen)) seen[wait] = (seen[wait] ?? 0) + n
  return { samples: a.samples + b.samples, seen }
}

/**
 * Starts two service processes on one database and drives POST /v1/pets: in each round, first
 * one process with every connection, then both at once with half each; meanwhile samples what
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
  const waits = { one: { samples: 0, seen: {} }, two: { samples: 0, seen: {} } }
  try {
    servers.push(
      ...(await Promise.all(
        ['service A', 'service B'].map((name) => launch({ ...serviceSpec(shared), name })),
      )),
    )
    const [a, b] = servers as [Launched, Launched]
    if (options.warmup !== undefined)
      await Promise.all(servers.map((s) => drive(s, create, options.warmup!, apiKey)))
    for (let round = 1; round <= options.rounds; round++) {
      let sampler = sampleWaits(shared.databaseUrl)
      const one = await drive(a, create, options.load, apiKey)
      waits.one = add(waits.one, await sampler.stop())
      sampler = sampleWaits(shared.databaseUrl)
      const two = await Promise.all([drive(a, create, half, apiKey), drive(b, create, half, apiKey)])
      waits.two = add(waits.two, await sampler.stop())
      rounds.push({ one, two })
      const rate = (samples: ReadonlyArray<Sample>) =>
        samples.reduce((sum, s) => sum + s.requestsPerSecond, 0)
      log(
        `write ceiling round ${round}/${options.rounds}: one process ${rate([one]).toFixed(0)} inserts/s, ` +
          `two ${rate(two).toFixed(0)} inserts/s`,
      )
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
  const synchronousCommit = await show(shared.databaseUrl, 'synchronous_commit')
  return { connections: options.load.connections, synchronousCommit, rounds, waits }
}

/** The write ceiling as a section of RESULTS.md. */
export const writeCeilingSection = (w: WriteCeiling): string => {
  type Round = WriteCeiling['rounds'][number]
  const total = (samples: ReadonlyArray<Sample>) => samples.reduce((sum, s) => sum + s.requestsPerSecond, 0)
  const half = Math.max(1, Math.round(w.connections / 2))
  const line = (processes: string, connections: string, pick: (r: Round) => ReadonlyArray<Sample>) => {
    const of = (f: (s: Sample) => number) => median(w.rounds.flatMap((r) => pick(r).map(f)))
    const rate = median(w.rounds.map((r) => total(pick(r))))
    return [
      processes,
      connections,
      n0(rate),
      ms(of((s) => s.p50Ms)),
      ms(of((s) => s.p99Ms)),
      n0(of((s) => s.cpuUsPerRequest)),
    ]
  }
  const share = ({ samples, seen }: Waits, wait: string) =>
    samples === 0 ? '-' : `${(((seen[wait] ?? 0) / samples) * 100).toFixed(0)} %`
  const waits = [...new Set([...Object.keys(w.waits.one.seen), ...Object.keys(w.waits.two.seen)])].sort(
    (a, b) => (w.waits.two.seen[b] ?? 0) - (w.waits.two.seen[a] ?? 0),
  )
  return [
    '## Write ceiling: inserts per second on one database',
    '',
    `\`POST /v1/pets\` through the built service on PostgreSQL (synchronous_commit ${w.synchronousCommit}), ` +
      `${w.rounds.length} rounds: one process with ${w.connections} connections, then two processes at once ` +
      `with ${half} each. Medians over the rounds; latencies and CPU per process. Two processes / one: ` +
      `**${x(median(w.rounds.map((r) => total(r.two) / total([r.one]))))}**.`,
    '',
    table(
      ['processes', 'connections', 'inserts/s', 'p50 ms', 'p99 ms', 'CPU µs/insert'],
      [line('1', String(w.connections), (r) => [r.one]), line('2', `2 × ${half}`, (r) => r.two)],
    ),
    '',
    "The database's busy connections, from `pg_stat_activity` every 20 ms: the share of samples in which " +
      'at least one was in each wait (`Lock:advisory`: waiting for the id-ordering lock, which each insert ' +
      'holds until it has committed; `IO:WALSync`, `LWLock:WALWrite`: a commit waiting for the WAL to reach ' +
      'the disk; `CPU`: running):',
    '',
    table(
      ['wait', 'samples, 1 process', 'samples, 2 processes'],
      waits.map((wait) => [wait, share(w.waits.one, wait), share(w.waits.two, wait)]),
    ),
  ].join('\n')
}
