import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { MAIN, rememberSecret, startTestService, type ChildService } from './support/test-service.js'

const exec = promisify(execFile)
const KEY = 'scale-out-e2e-key-c05e11'
const AUTH = { Authorization: `Bearer ${KEY}` }

const create = (url: string, i: number) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `pet ${i}`, categoryId: 1 + (i % 7) }),
  })

const listIds = async (url: string): Promise<Array<number>> => {
  const ids: Array<number> = []
  for (let after = 0; ;) {
    const page = (await (
      await fetch(`${url}/v1/pets?limit=100&after=${after}`, { headers: AUTH })
    ).json()) as Array<{ id: number }>
    ids.push(...page.map((p) => p.id))
    if (page.length < 100) return ids
    after = page.at(-1)!.id
  }
}

// Instances behind a load balancer share nothing but PostgreSQL.
describe('several instances on one database', () => {
  const databases: Array<FreshDatabase> = []
  const services: Array<ChildService> = []
  afterEach(async () => {
    await Promise.all(services.splice(0).map((svc) => svc.stop('SIGKILL')))
    await Promise.all(databases.splice(0).map((db) => db.close()))
  })
  const twoInstances = async (env: Record<string, string> = {}) => {
    const database = await openFreshDatabase(inject('postgres'))
    databases.push(database)
    const both = await Promise.all(
      [1, 2].map(() =>
        startTestService({ mode: 'child', env: { DATABASE_URL: database.url, API_KEYS: KEY, ...env } }),
      ),
    )
    services.push(...both)
    return { database, a: both[0]!, b: both[1]! }
  }

  it('gives 500 concurrent creates spread over two processes 500 distinct ids, all listed', async () => {
    // Generous timeouts: this test is about ids, not about how fast a busy machine answers.
    const { a, b } = await twoInstances({
      DATABASE_POOL_SIZE: '20',
      DATABASE_CONNECT_TIMEOUT_MS: '20000',
      DATABASE_STATEMENT_TIMEOUT_MS: '20000',
      DATABASE_LOCK_TIMEOUT_MS: '20000',
    })
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, i)),
    )
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201))
    const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as { id: number }).id))
    expect(new Set(ids).size).toBe(500)
    const sorted = [...ids].sort((x, y) => x - y)
    expect(await listIds(a.url)).toEqual(sorted)
    expect(await listIds(b.url)).toEqual(sorted)
  })

  it('counts the getPet calls of each key over both processes, and `keys usage` lists them', async () => {
    const { database, a, b } = await twoInstances()
    const cli = (...args: Array<string>) =>
      exec(process.execPath, [MAIN, ...args], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, API_KEYS: KEY },
      })
    const issued = (await cli('keys', 'create', '--name', 'legacy-app')).stdout.trim().split('\n').at(-1)!
    rememberSecret(issued)
    const pet = (await (await create(a.url, 1)).json()) as { id: number }
    const getPet = (url: string, key: string) =>
      fetch(`${url}/v1/pets/${pet.id}`, { headers: { Authorization: `Bearer ${key}` } })
    for (const url of [a.url, a.url, b.url]) expect((await getPet(url, KEY)).status).toBe(200)
    for (const url of [a.url, b.url]) expect((await getPet(url, issued)).status).toBe(200)
    const scrape = await (await fetch(`${a.url}/metrics`)).text()
    expect(scrape).toContain(`deprecated_operation_calls_total{operation="getPet",key_id="env-1"} 2`)
    expect(scrape).toMatch(/deprecated_operation_calls_total\{operation="getPet",key_id="1"\} 1/)

    // A clean stop writes what each process counted.
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0])
    const lines = (await cli('keys', 'usage')).stdout.trim().split('\n')
    expect(lines.map((line) => line.split(/ {2,}/).slice(0, 4))).toEqual([
      ['ID', 'NAME', 'LAST USED', 'getPet CALLS'],
      ['env-1', 'API_KEYS #1', expect.stringMatching(/^\d{4}-/), '3'],
      ['1', 'legacy-app', expect.stringMatching(/^\d{4}-/), '2'],
    ])
    expect(lines.join('\n')).not.toContain(issued)
  })

  it('checks stored keys in memory on both processes, and a revocation holds on both from the next request', async () => {
    const { database, a, b } = await twoInstances()
    const cli = (...args: Array<string>) =>
      exec(process.execPath, [MAIN, ...args], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, API_KEYS: KEY },
      })
    const issued = (await cli('keys', 'create', '--name', 'partner')).stdout.trim().split('\n').at(-1)!
    rememberSecret(issued)
    const list = (url: string) => fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${issued}` } })
    // A key issued by another process is heard of: both accept it (polled: the notification is async).
    for (const url of [a.url, b.url]) {
      await pollUntil(`${url} accepts the new key`, async () => (await list(url)).status === 200)
      expect((await list(url)).status).toBe(200)
    }
    // Both processes say they check stored keys in memory.
    for (const svc of [a, b]) expect(svc.output()).not.toContain('not hearing of changes')

    const revoked = await cli('keys', 'revoke', '1')
    expect(revoked.stdout).toContain('1')
    // The next request after the command returned, on either process, is refused.
    const [onA, onB] = await Promise.all([list(a.url), list(b.url)])
    expect([onA.status, onB.status]).toEqual([401, 401])
    for (let i = 0; i < 20; i++) expect((await list(i % 2 === 0 ? a.url : b.url)).status).toBe(401)
  })
})
