import { freePort } from '@pets/adapters-postgres/testing'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { ensureWrk } from '../load.js'
import { readProcMemory } from '../memory.js'
import type { BenchOptions } from '../options.js'
import { withDatabase } from '../own-database.js'
import { createStoredKey } from '../servers.js'
import { runClients, type ClientReport } from './churn-client.js'
import { startChurnService } from './churn-service.js'
import { checkLog, type LogCheck } from './log-check.js'
import { killWorkers, type Kill } from './kills.js'

/** A sample a second: the primary's memory and descriptors, the workers' memory, the database's sessions. */
export type Sample = {
  readonly atMs: number
  readonly primaryRss: number
  readonly primaryFds: number
  readonly workersRss: ReadonlyArray<number>
  /** Sessions of the service on its database: all, and the LISTEN ones (`…-api-keys`). */
  readonly sessions: number
  readonly listenSessions: number
}

/** A scrape of /metrics: how many series, and the totals that must never go down. */
export type Scrape = {
  readonly atMs: number
  readonly status: number
  readonly series: number
  readonly requests: number
  readonly durations: number
  readonly cpuSeconds: number
}

export type ChurnFigures = {
  readonly seconds: number
  readonly kills: ReadonlyArray<Kill>
  readonly samples: ReadonlyArray<Sample>
  readonly scrapes: ReadonlyArray<Scrape>
  /** The primary's probe lines (probe.ts), first and last. */
  readonly probes: ReadonlyArray<Record<string, unknown>>
  readonly clients: ClientReport
  readonly wrk: string
  /** Pets whose Idempotency-Key name is there twice in the table (must be 0), and the sessions once idle. */
  readonly keyedTwice: number
  readonly idleSessions: number
  readonly log: LogCheck
  readonly exitCode: number | null
}

const CREATORS = 6
const WALKERS = 2
const WRK_CONNECTIONS = 8

const get = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve) => {
    const req = request(url, { agent: false, timeout: 10_000 }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', () => resolve({ status: 0, body: '' }))
    req.on('timeout', () => req.destroy())
    req.end()
  })

const total = (lines: ReadonlyArray<string>, name: string) =>
  lines
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)

/**
 * The churn soak: the service with WEB_CONCURRENCY=2 on a database of its own, its log piped to `cat`, under wrk
 * (list 20) and the clients of churn-client.ts for `options.load.durationS`, its workers killed (kills.ts) until
 * 60 s before the end; sampled every second, scraped every 3 s. Then the log and the table are checked.
 */
export const runChurn = (options: BenchOptions, log: (line: string) => void): Promise<ChurnFigures> =>
  withDatabase(options, 'churn', async ({ databaseUrl }) => {
    const seconds = options.load.durationS
    const key = await createStoredKey(databaseUrl, 'churn')
    const dir = mkdtempSync(join(tmpdir(), 'bench-churn-'))
    const db = new pg.Client({ connectionString: databaseUrl })
    db.on('error', () => {})
    await db.connect()
    try {
      const name = new URL(databaseUrl).pathname.slice(1)
      const sessions = async () => {
        const { rows } = await db.query<{ app: string; n: string }>(
          `SELECT application_name AS app, count(*) AS n FROM pg_stat_activity
           WHERE datname = $1 AND pid <> pg_backend_pid() GROUP BY 1`,
          [name],
        )
        const count = (keep: (app: string) => boolean) =>
          rows.filter((r) => keep(r.app)).reduce((sum, r) => sum + Number(r.n), 0)
        return { all: count(() => true), listen: count((app) => app.endsWith('-api-keys')) }
      }
      // BENCH_CHURN_PORT: a port of one's own on a shared machine; else a free one.
      const port = Number(process.env['BENCH_CHURN_PORT']) || (await freePort())
      const env = {
        DATABASE_URL: databaseUrl,
        APP_ENV: 'staging',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`,
      }
      const service = await startChurnService(env, port, join(dir, 'service.log'), join(dir, 'probe.jsonl'))
      let wrk: ReturnType<typeof spawn> | undefined
      let sampling = true
      try {
        const started = Date.now()
        log(`churn: the cluster listens (primary ${service.primary}); ${seconds} s of load and kills`)
        const load = spawn(ensureWrk(), [
          ...['-t1', `-c${WRK_CONNECTIONS}`, `-d${Math.ceil(seconds)}s`, '--timeout', '10s'],
          ...['-H', `Authorization: Bearer ${key}`, `${service.url}/v1/pets?limit=20`],
        ])
        wrk = load
        let wrkOut = ''
        load.stdout.on('data', (chunk: Buffer) => (wrkOut += chunk.toString()))
        const wrkDone = new Promise<void>((resolve) => load.once('exit', () => resolve()))
        const samples: Array<Sample> = []
        const scrapes: Array<Scrape> = []
        const sampler = (async () => {
          for (let n = 0; sampling; n++) {
            const { all, listen } = await sessions()
            samples.push({
              atMs: Date.now() - started,
              primaryRss: readProcMemory(service.primary, 'VmRSS') ?? 0,
              primaryFds: Number(service.probes().at(-1)?.['fds'] ?? 0),
              workersRss: service.workers().map((w) => readProcMemory(w, 'VmRSS') ?? 0),
              sessions: all,
              listenSessions: listen,
            })
            if (n % 3 === 0) {
              const page = await get(`${service.url}/metrics`)
              const lines = page.body.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
              scrapes.push({
                atMs: Date.now() - started,
                status: page.status,
                series: lines.length,
                requests: total(lines, 'http_requests_total'),
                durations: total(lines, 'http_request_duration_seconds_count'),
                cpuSeconds: total(lines, 'process_cpu_seconds_total'),
              })
            }
            await sleep(1000)
          }
        })()
        const clients = runClients(service.url, key, started + seconds * 1000, CREATORS, WALKERS)
        const quietS = Math.min(60, seconds / 6)
        const kills = await killWorkers(
          service,
          started + 10_000,
          started + (seconds - quietS) * 1000,
          async () => {
            await sleep(1000)
            return (await sessions()).all
          },
        )
        const report = await clients
        await wrkDone
        await sleep(3000)
        const idleSessions = (await sessions()).all
        sampling = false
        await sampler
        const probes = service.probes()
        const exitCode = await service.stop()
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM (SELECT name FROM pets WHERE name LIKE 'k-%' GROUP BY name HAVING count(*) > 1) d`,
        )
        return {
          seconds,
          kills,
          samples,
          scrapes,
          probes: [probes[0] ?? {}, probes.at(-1) ?? {}],
          clients: report,
          wrk: wrkOut,
          keyedTwice: Number(rows[0]?.n ?? 0),
          idleSessions,
          log: await checkLog(join(dir, 'service.log')),
          exitCode,
        }
      } finally {
        sampling = false
        wrk?.kill()
        await service.stop()
      }
    } finally {
      await db.end().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  })
