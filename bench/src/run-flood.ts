import { startDelayingProxy, type PostgresProxy } from '@pets/adapters-postgres/testing'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { launch, type Launched } from './launch.js'
import { ensureWrk, InvalidRun, quantile } from './load.js'
import { ms, n0, table, x } from './markdown.js'
import type { BenchOptions } from './options.js'
import { createDatabase, databaseUrl, dropDatabase, seedPets } from './postgres.js'
import { serviceCommand, serviceSpec } from './servers.js'

const FLOOD_SCRIPT = fileURLToPath(new URL('../src/flood.lua', import.meta.url))
// As on a busy database: on loopback a pool of 10 serves tens of thousands of lookups a second, and
// only the CPU would run out.
const QUERY_MS = 50
const FLOOD_CONNECTIONS = 64
// The client with a key: this many loops listing pets, one request after the other in each.
const CLIENT_LOOPS = 4
// Answers that began this soon after a window turned are counted in neither.
const SETTLE_MS = 150
// Past this the client's requests are the same whatever the flood does: the target of issue 14.
const MOST_P99_RATIO = 2

/** What the client with a key saw in one variant, and what the flood got. */
export type FloodVariant = {
  readonly label: string
  readonly quietP99Ms: number
  readonly floodP99Ms: number
  readonly quietRequests: number
  readonly floodRequests: number
  /** Answers to the client with a key other than 200, by status. */
  readonly clientFailures: Readonly<Record<string, number>>
  /** The flood's answers, by status. */
  readonly floodStatuses: Readonly<Record<string, number>>
}

export type FloodFigures = {
  readonly windows: number
  readonly windowS: number
  readonly variants: ReadonlyArray<FloodVariant>
}

type Answer = { readonly status: number; readonly ms: number; readonly at: number }

// One request of the client with a key, from an address of its own (the limit is per address).
const list = (url: string, agent: Agent, key: string) =>
  new Promise<Answer>((resolve, reject) => {
    const at = Date.now()
    const started = performance.now()
    const options = { agent, localAddress: '127.0.0.2', headers: { Authorization: `Bearer ${key}` } }
    const req = request(`${url}/v1/pets`, options, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, at }))
    })
    req.on('error', reject)
    req.end()
  })

// One window of flood: wrk with random keys for `seconds`; its answers by status.
const floodFor = async (url: string, seconds: number): Promise<Record<string, number>> => {
  const args = ['--threads', '1', '--connections', String(FLOOD_CONNECTIONS), '--duration', `${seconds}s`]
  const { stdout } = await promisify(execFile)(ensureWrk(), [
    ...args,
    '--timeout',
    '5s',
    '--script',
    FLOOD_SCRIPT,
    `${url}/v1/pets`,
  ])
  const line = stdout.split('\n').find((l) => l.startsWith('FLOOD_RESULT '))
  if (line === undefined) throw new InvalidRun(`the flood's wrk gave no result:\n${stdout}`)
  return (JSON.parse(line.slice('FLOOD_RESULT '.length)) as { statuses: Record<string, number> }).statuses
}

const add = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
  for (const [status, count] of Object.entries(from)) into[status] = (into[status] ?? 0) + count
}

const p99 = (answers: ReadonlyArray<Answer>) =>
  quantile(
    answers.map((a) => a.ms).sort((a, b) => a - b),
    0.99,
  )

/**
 * The client with a key lists pets in CLIENT_LOOPS loops while quiet windows and flood windows take
 * turns (`windows` of `windowS` each, flood in the odd ones), so that a machine busy with other work
 * weighs on both alike; the p99 of each kind of window.
 */
const measure = async (
  service: Launched,
  key: string,
  windows: number,
  windowS: number,
  label: string,
): Promise<FloodVariant> => {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENT_LOOPS })
  try {
    for (let i = 0; i < 50; i++) await list(service.url, agent, key) // connections, JIT
    const start = Date.now() + 200
    const end = start + windows * windowS * 1000
    const floodStatuses: Record<string, number> = {}
    const flooding = (async () => {
      for (let window = 1; window < windows; window += 2) {
        const at = start + window * windowS * 1000
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())))
        add(floodStatuses, await floodFor(service.url, windowS))
      }
    })()
    const answers: Array<Answer> = []
    await Promise.all(
      Array.from({ length: CLIENT_LOOPS }, async () => {
        while (Date.now() < end) answers.push(await list(service.url, agent, key))
      }),
    )
    await flooding
    const windowOf = (a: Answer) => Math.floor((a.at - start) / (windowS * 1000))
    const settled = answers.filter(
      (a) => a.at >= start && a.at < end && (a.at - start) % (windowS * 1000) >= SETTLE_MS,
    )
    const quiet = settled.filter((a) => windowOf(a) % 2 === 0)
    const during = settled.filter((a) => windowOf(a) % 2 === 1)
    const clientFailures: Record<string, number> = {}
    for (const a of answers)
      if (a.status !== 200) clientFailures[a.status] = (clientFailures[a.status] ?? 0) + 1
    return {
      label,
      quietP99Ms: p99(quiet),
      floodP99Ms: p99(during),
      quietRequests: quiet.length,
      floodRequests: during.length,
      clientFailures,
      floodStatuses,
    }
  } finally {
    agent.destroy()
  }
}

/**
 * Issue 14's flood, measured: on a database of its own behind a proxy that makes each query take
 * QUERY_MS, the service with its LISTEN connection down (every stored key then costs a query, the
 * worst case for a flood) and a key in API_KEYS for the client; 64 connections send random keys.
 * Once with the limit on failed authentications as it ships, once with it lifted.
 */
export const runFlood = async (options: BenchOptions, log: (line: string) => void): Promise<FloodFigures> => {
  const name = `${options.databaseName}_flood`
  const windows = options.smoke ? 2 : 20
  const windowS = 1
  await createDatabase(options.adminUrl, name)
  const direct = databaseUrl(options.adminUrl, name)
  let proxy: PostgresProxy | undefined
  const key = randomBytes(24).toString('base64url')
  try {
    await serviceCommand(direct, 'migrate')
    await seedPets(direct, options.seededPets)
    proxy = await startDelayingProxy(direct, QUERY_MS)
    const variants: Array<FloodVariant> = []
    for (const [label, limit] of [
      ['as shipped', {}],
      ['limit lifted', { AUTH_FAILURE_LIMIT_PER_SECOND: '1000000', AUTH_FAILURE_LIMIT_BURST: '1000000' }],
    ] as const) {
      const base = serviceSpec({ apiKeys: [key], databaseUrl: proxy.url })
      const service = await launch({
        ...base,
        env: {
          ...base.env,
          ...limit,
          // No LISTEN connection: stored keys are looked up by a query each.
          DATABASE_DIRECT_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
          MIGRATE_ON_START: 'false',
        },
      })
      try {
        const variant = await measure(service, key, windows, windowS, label)
        log(
          `flood, ${label}: p99 quiet ${ms(variant.quietP99Ms)} ms, during the flood ${ms(variant.floodP99Ms)} ms; ` +
            `client failures ${JSON.stringify(variant.clientFailures)}; flood ${JSON.stringify(variant.floodStatuses)}`,
        )
        variants.push(variant)
      } finally {
        await service.stop()
      }
    }
    return { windows, windowS, variants }
  } finally {
    await proxy?.close()
    await dropDatabase(options.adminUrl, name)
  }
}

/** The figures as a section of RESULTS.md. */
export const floodSection = (f: FloodFigures): string =>
  [
    '## A flood of keys that are not valid (PostgreSQL)',
    '',
    `The built service on PostgreSQL behind a proxy that makes each query take ${QUERY_MS} ms, its LISTEN ` +
      'connection down (every stored key then costs a query: the worst case), a key in API_KEYS for the client. ' +
      `The client lists pets from 127.0.0.2 in ${CLIENT_LOOPS} loops, one request after the other, while ` +
      `${f.windows} windows of ${f.windowS} s take turns: quiet, then ${FLOOD_CONNECTIONS} connections (wrk, ` +
      '`src/flood.lua`) sending random keys, each waiting 150–250 ms after an answer. p99 over the answers of ' +
      `each kind of window (those begun ${SETTLE_MS} ms after a turn). Target (issue 14): no answer other than ` +
      `200 to the client, and its p99 during the flood within ${MOST_P99_RATIO}× the quiet one.`,
    '',
    table(
      [
        'limit on failed authentications',
        'client p99 quiet ms',
        'client p99 flood ms',
        'flood / quiet',
        'client answers',
        'client not 200',
        'flood answers by status',
        'target met',
      ],
      f.variants.map((v) => [
        v.label,
        ms(v.quietP99Ms),
        ms(v.floodP99Ms),
        x(v.floodP99Ms / v.quietP99Ms),
        n0(v.quietRequests + v.floodRequests),
        Object.keys(v.clientFailures).length === 0 ? 'none' : JSON.stringify(v.clientFailures),
        Object.entries(v.floodStatuses)
          .map(([s, c]) => `${s}: ${n0(c)}`)
          .join(', '),
        Object.keys(v.clientFailures).length === 0 && v.floodP99Ms <= MOST_P99_RATIO * v.quietP99Ms
          ? 'yes'
          : '**no**',
      ]),
    ),
  ].join('\n')
