import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { request } from 'node:http'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'cluster-e2e-key-9b77d0'

// A fresh connection each time, so that the primary's round robin spreads the requests.
const get = (url: string, path: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { agent: false, headers: { Authorization: `Bearer ${KEY}` } },
      (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })

const lines = (svc: ChildService, msg: string) =>
  svc
    .output()
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('WEB_CONCURRENCY: several workers on one port', () => {
  const databases: Array<FreshDatabase> = []
  const services: Array<ChildService> = []
  afterEach(async () => {
    await Promise.all(services.splice(0).map((svc) => svc.stop('SIGKILL')))
    await Promise.all(databases.splice(0).map((db) => db.close()))
  })

  it('migrates once, spreads requests over the workers, sums their metrics, replaces a dead one, and stops cleanly', async () => {
    const database = await openFreshDatabase(inject('postgres'), { empty: true })
    databases.push(database)
    const svc = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: database.url, API_KEYS: KEY, WEB_CONCURRENCY: '2' },
      listening: 2,
      timeoutMs: 20_000,
    })
    services.push(svc)
    // The primary migrated, alone, before it forked.
    expect(svc.output().match(/migrations: ran/g)).toHaveLength(1)

    for (let i = 0; i < 20; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)
    // Each worker writes its request lines in batches, within 100 ms: wait for both to have.
    const workers = () => new Set(lines(svc, 'request').map((l) => l['pid']))
    await pollUntil('request lines from both workers', () => workers().size === 2, 5_000)

    // Whichever worker answers the scrape, it counts the requests of both.
    for (let i = 0; i < 2; i++) {
      const scrape = await get(svc.url, '/metrics')
      expect(scrape.status).toBe(200)
      expect(scrape.body).toMatch(/http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 20\n/)
    }

    const [victim] = [...workers()]
    process.kill(victim as number, 'SIGKILL')
    await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    expect(lines(svc, 'a worker died; replacing it')).toEqual([
      expect.objectContaining({ worker: victim, signal: 'SIGKILL' }),
    ])
    for (let i = 0; i < 6; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)

    expect(await svc.stop('SIGTERM')).toBe(0)
    expect(lines(svc, 'stopped').filter((l) => l['outcome'] === 'clean').length).toBe(3)
    for (const pid of lines(svc, 'listening').map((l) => l['pid'] as number))
      expect(() => process.kill(pid, 0)).toThrow()
  })
})
