import {
  openFreshDatabase,
  startDelayingProxy,
  type PostgresProxy,
  type FreshDatabase,
} from '@pets/adapters-postgres/testing'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = `flood-test-${randomBytes(24).toString('base64url')}`
// How long each query takes, as on a busy database: on loopback a pool of 10 would serve tens of
// thousands of lookups a second, and only the CPU would run out.
const QUERY_MS = 50
const FLOOD_CONNECTIONS = 64
const READY_PROBES = 8
// The client with a key: this many loops of listing pets, one request after the other in each.
const CLIENT_LOOPS = 4
// Flood and quiet take turns, a second each, for 20 s: a machine busy with other work then weighs
// on both alike, and the quiet p99 is measured in the same moments as the flood's.
const WINDOW_MS = 1_000
const WINDOWS = 20
// Answers that began this soon after a turn are counted in neither.
const SETTLE_MS = 150

// The flood runs in a process of its own, so that its bookkeeping never delays the timing of the
// client with a key. In each odd window from `start` on, each connection sends a random key, reads
// the answer, waits 150 to 250 ms (at random, as independent
// clients would), and again; some probe /readyz the same way. In even windows it waits.
// Then it prints how many answers of each status it got.
const FLOOD = `
const { Agent, request } = require('node:http')
const { randomBytes } = require('node:crypto')
const [url, ...numbers] = process.argv.slice(1)
const [connections, probes, start, windowMs, windows] = numbers.map(Number)
const agent = new Agent({ keepAlive: true, maxSockets: connections + probes })
const statuses = {}
const end = start + windowMs * windows
const attack = (path) => new Promise((done) => {
  const next = () => {
    const now = Date.now()
    if (now >= end) return done()
    const window = Math.floor((now - start) / windowMs)
    if (now < start || window % 2 === 0) return setTimeout(next, start + (window + 1) * windowMs - now)
    const headers = { Authorization: 'Bearer ' + randomBytes(18).toString('base64url') }
    const req = request(url + path, { agent, localAddress: '127.0.0.1', headers }, (res) => {
      res.resume()
      res.on('end', () => {
        statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1
        setTimeout(next, 150 + Math.random() * 100)
      })
    })
    req.on('error', () => setTimeout(next, 150 + Math.random() * 100))
    req.end()
  }
  next()
})
Promise.all([
  ...Array.from({ length: connections }, () => attack('/v1/pets')),
  ...Array.from({ length: probes }, () => attack('/readyz')),
]).then(() => {
  process.stdout.write(JSON.stringify(statuses))
  agent.destroy()
})
`

const flood = (url: string, start: number) =>
  new Promise<Record<string, number>>((resolve, reject) => {
    const args = [FLOOD_CONNECTIONS, READY_PROBES, start, WINDOW_MS, WINDOWS].map(String)
    const child = spawn(process.execPath, ['-e', FLOOD, url, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('exit', () => resolve(JSON.parse(out || '{}') as Record<string, number>))
  })

type Sample = { readonly status: number; readonly ms: number; readonly at: number }

const get = (url: string, agent: Agent) =>
  new Promise<Sample>((resolve, reject) => {
    const at = Date.now()
    const started = performance.now()
    // From an address of its own: the limit on keys that are not valid is per address.
    const options = { agent, localAddress: '127.0.0.2', headers: { Authorization: `Bearer ${KEY}` } }
    const req = request(`${url}/v1/pets`, options, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, at }))
    })
    req.on('error', reject)
    req.end()
  })

const p99 = (samples: ReadonlyArray<Sample>) => {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!
}

describe('a flood of keys that are not valid (PostgreSQL, a real process)', () => {
  let database: FreshDatabase
  let proxy: PostgresProxy
  let svc: ChildService
  beforeAll(async () => {
    database = await openFreshDatabase(inject('postgres'))
    proxy = await startDelayingProxy(database.url, QUERY_MS)
    svc = await startTestService({
      mode: 'child',
      env: {
        DATABASE_URL: proxy.url,
        // No LISTEN connection: stored keys are looked up by a query each, the worst case for a flood.
        DATABASE_DIRECT_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
        // The migrations would run through DATABASE_DIRECT_URL; the clone of the template has them.
        MIGRATE_ON_START: 'false',
        API_KEYS: KEY,
        SHUTDOWN_DELAY_MS: '0',
      },
    })
  }, 60_000)
  afterAll(async () => {
    await svc?.stop()
    await proxy?.close()
    await database?.close()
  })

  it(`leaves a client with a key untouched while ${FLOOD_CONNECTIONS} connections send random keys: no 503, the flood refused before any lookup`, async () => {
    const client = new Agent({ keepAlive: true, maxSockets: CLIENT_LOOPS })
    try {
      // Warm up: connections, JIT.
      for (let i = 0; i < 20; i++) await get(svc.url, client)
      // The flood has been going on a while: its address has spent its burst already, so its
      // lookups come one a second, not twenty at the first flood's start.
      const guesses = await Promise.all(
        Array.from({ length: 30 }, () =>
          fetch(`${svc.url}/v1/pets`, {
            headers: { Authorization: `Bearer ${randomBytes(18).toString('base64url')}` },
          }).then(async (res) => (await res.arrayBuffer(), res)),
        ),
      )
      expect(guesses.filter((g) => g.status === 429).length).toBeGreaterThan(0)
      const start = Date.now() + 500
      const flooded = flood(svc.url, start)
      const samples: Array<Sample> = []
      // A few requests at a time, one after the other in each loop: enough answers that a p99 is not
      // the one slowest.
      await Promise.all(
        Array.from({ length: CLIENT_LOOPS }, async () => {
          while (Date.now() < start + WINDOW_MS * WINDOWS) samples.push(await get(svc.url, client))
        }),
      )
      const floodStatuses = await flooded
      const settled = samples.filter((s) => s.at >= start && (s.at - start) % WINDOW_MS >= SETTLE_MS)
      const flooding = (s: Sample) => Math.floor((s.at - start) / WINDOW_MS) % 2 === 1
      const quiet = settled.filter((s) => !flooding(s))
      const during = settled.filter(flooding)

      const where =
        `quiet p99 ${p99(quiet).toFixed(1)} ms over ${quiet.length}, flood p99 ${p99(during).toFixed(1)} ms ` +
        `over ${during.length}; the flood got ${JSON.stringify(floodStatuses)}`
      expect(
        samples.filter((s) => s.status !== 200),
        where,
      ).toEqual([])
      // The p99s are reported, not asserted: on a machine shared with other suites a timing bound
      // fails for reasons of its own. `pnpm bench` is where latency is measured.
      console.info(`auth flood: ${where}`)
      // The flood was refused, all but a few of its keys before any lookup: 429 from its address.
      expect(floodStatuses['429'] ?? 0, where).toBeGreaterThan(1_000)
      expect(floodStatuses['401'] ?? 0, where).toBeLessThan(100)
    } finally {
      client.destroy()
    }
  }, 90_000)
})
