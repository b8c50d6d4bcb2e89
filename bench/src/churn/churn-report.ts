import { quantile } from '../load.js'
import { n0, table } from '../markdown.js'
import { mib } from '../memory.js'
import type { Kill } from './kills.js'
import type { ChurnFigures } from './run-churn.js'

const sorted = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)
// "p50 / max" of what is defined, or "–".
const spread = (values: ReadonlyArray<number | undefined>) => {
  const s = sorted(values.filter((v): v is number => v !== undefined))
  return s.length === 0 ? '–' : `${n0(quantile(s, 0.5))} / ${n0(s.at(-1)!)}`
}
const range = (values: ReadonlyArray<number>) =>
  values.length === 0 ? '–' : `${n0(Math.min(...values))}–${n0(Math.max(...values))}`
const between = (k: Kill, from: keyof Kill, to: keyof Kill) =>
  typeof k[from] === 'number' && typeof k[to] === 'number'
    ? (k[to] as number) - (k[from] as number)
    : undefined

const replacing = (kills: ReadonlyArray<Kill>) => {
  const rows = (['SIGKILL', 'SIGTERM'] as const).map((signal) => {
    const ks = kills.filter((k) => k.signal === signal && k.phase !== 'rapid')
    return [
      `${signal}, a worker that ran 10 s or more`,
      ks.length,
      spread(ks.map((k) => k.goneMs)),
      spread(ks.map((k) => k.restartInMs)),
      spread(ks.map((k) => between(k, 'goneMs', 'listeningMs'))),
      spread(ks.map((k) => k.listeningMs)),
      ks.reduce((sum, k) => sum + (k.connectionsReset ?? 0), 0),
    ]
  })
  const rapid = kills.filter((k) => k.phase === 'rapid')
  const head = ['kill', 'kills', 'killed → exit logged', 'back-off', 'exit → replacement listens']
  return [
    table([...head, 'killed → replacement listens', 'connections reset'], rows),
    '',
    "In ms, p50 / max, by the log lines' own times (the primary's line on the exit, the replacement's `listening`). " +
      'A SIGTERM drains for `SHUTDOWN_DELAY_MS` (5 s in `staging`) before the worker exits.' +
      (rapid.length === 0
        ? ''
        : ` Then ${rapid.length} workers killed as soon as they listened; the back-offs the primary logged, in turn: ` +
          `${rapid.map((k) => `${k.signal} ${k.restartInMs ?? '?'}`).join(', ')}; exit → replacement listens: ` +
          `${spread(rapid.map((k) => between(k, 'goneMs', 'listeningMs')))}.`),
  ].join('\n')
}

const resource = (probe: Record<string, unknown>, kind: string) =>
  Number((probe['resources'] as Record<string, number> | undefined)?.[kind] ?? 0)

// Which of the answers the clients did not ask for came about a kill: from 0.5 s before it to 2 s after the
// worker was gone (a SIGTERM's worker drains for 5 s first); the others by kind and outcome.
const unexpectedLine = (f: ChurnFigures) => {
  const near = (at: number) => f.kills.some((k) => at >= k.at - 500 && at <= k.at + (k.goneMs ?? 0) + 2000)
  const apart: Record<string, number> = {}
  for (const u of f.clients.unexpected.filter((u) => !near(u.at)))
    apart[`${u.kind} ${u.outcome}`] = (apart[`${u.kind} ${u.outcome}`] ?? 0) + 1
  const count = Object.values(apart).reduce((sum, n) => sum + n, 0)
  return (
    `${f.clients.unexpected.length} answers other than 201 or 200, ${f.clients.unexpected.length - count} of them ` +
    `about a kill (0.5 s before it to 2 s after the worker was gone); the others: ${JSON.stringify(apart)}.`
  )
}

/** The figures as the lab's section. */
export const churnSection = (f: ChurnFigures): string => {
  const [first = {}, last = {}] = f.probes
  const load = f.samples.filter((s) => s.atMs > 10_000)
  const c = f.clients
  const down = (key: 'requests' | 'durations' | 'cpuSeconds') =>
    f.scrapes.slice(1).filter((s, i) => s.status === 200 && s[key] < f.scrapes[i]![key]).length
  const scraped = f.scrapes.filter((s) => s.status === 200)
  return [
    '## Churn: workers killed under load',
    '',
    `${f.seconds} s of \`wrk\` (list 20, 8 connections) and of 6 loops creating pets (every other one with ` +
      'Idempotency-Key, retried until answered) and 2 walking `next` links, on `WEB_CONCURRENCY=2` with its log ' +
      `piped to \`cat\`; ${f.kills.length} workers killed.`,
    '',
    '### Replacing a worker',
    '',
    replacing(f.kills),
    '',
    '### The primary',
    '',
    table(
      ['', 'at the start', 'at the end', 'most'],
      [
        [
          'RSS, MiB',
          mib(f.samples[0]?.primaryRss ?? 0),
          mib(f.samples.at(-1)?.primaryRss ?? 0),
          mib(Math.max(...f.samples.map((s) => s.primaryRss))),
        ],
        ['heap used, MiB', mib(Number(first['heapUsed'] ?? 0)), mib(Number(last['heapUsed'] ?? 0)), ''],
        [
          'descriptors',
          Number(first['fds'] ?? 0),
          Number(last['fds'] ?? 0),
          Math.max(...f.samples.map((s) => s.primaryFds)),
        ],
        [
          'TCP connections held (TCPSocketWrap)',
          resource(first, 'TCPSocketWrap'),
          resource(last, 'TCPSocketWrap'),
          '',
        ],
        ['timers (Timeout)', resource(first, 'Timeout'), resource(last, 'Timeout'), ''],
        [
          'listeners on node:cluster',
          JSON.stringify(first['clusterListeners']),
          JSON.stringify(last['clusterListeners']),
          '',
        ],
      ],
    ),
    '',
    '### PostgreSQL sessions of the service',
    '',
    table(
      ['during the load', 'LISTEN ones', 'a second after each replacement listened', 'idle, at the end'],
      [
        [
          range(load.map((s) => s.sessions)),
          range(load.map((s) => s.listenSessions)),
          range(f.kills.flatMap((k) => k.after ?? [])),
          f.idleSessions,
        ],
      ],
    ),
    '',
    '### /metrics',
    '',
    `${f.scrapes.length} scrapes, ${f.scrapes.length - scraped.length} not answered 200; ` +
      `${range(scraped.map((s) => s.series))} series; went down: \`http_requests_total\` ${down('requests')} times, ` +
      `\`http_request_duration_seconds_count\` ${down('durations')}, \`process_cpu_seconds_total\` ${down('cpuSeconds')}.`,
    '',
    '### What the clients saw',
    '',
    `${n0(c.confirmed)} pets answered 201 (${n0(c.keyedCreations)} keyed); keys whose answers named two pets: ` +
      `${c.keysWithTwoPets}; keyed names twice in the table: ${f.keyedTwice}; keyed creations given up: ${c.keyedGivenUp}. ` +
      `${n0(c.walks.done)} walks: pets answered 201 missing ${c.walks.missing}, listed twice ${c.walks.twice}, ` +
      `out of order ${c.walks.disorder}; the last walk: ${n0(c.final.seen)} pets, missing ${c.final.missing}, twice ${c.final.twice}.`,
    '',
    unexpectedLine(f),
    '',
    table(
      ['answers', 'count'],
      Object.entries(c.outcomes)
        .sort()
        .map(([k, n]) => [k, n0(n)]),
    ),
    '',
    '```',
    f.wrk.trim(),
    '```',
    '',
    '### The log',
    '',
    `${n0(f.log.lines)} lines from ${f.log.processes} processes, ${f.log.notJson} not one JSON object; ` +
      `${n0(f.log.requestLines)} request lines, with a status of 500 or more: ${JSON.stringify(f.log.serverErrors)}; ` +
      `\`a worker died\` ${f.log.died} (connections reset: ${f.log.connectionsReset}), \`a worker stopped, not asked\` ` +
      `${f.log.stoppedAlone}; other lines at error: ${JSON.stringify(f.log.errors)}. The primary's exit: ${f.exitCode}.`,
  ].join('\n')
}
