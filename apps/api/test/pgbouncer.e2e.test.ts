import { openFreshDatabase, startTestPgBouncer, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { execFile } from 'node:child_process'
import { request } from 'node:http'
import { promisify } from 'node:util'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { startLoad, type Sent } from './support/load.js'
import { expectOneCreation } from './support/one-creation.js'
import { usePgBouncer } from './support/pgbouncer.js'
import { MAIN, rememberSecret, startTestService, type ChildService } from './support/test-service.js'
import { startTcpProxy } from './support/tcp-proxy.js'

const exec = promisify(execFile)
const KEY = 'pgbouncer-e2e-key-7b31d0'
const AUTH = { Authorization: `Bearer ${KEY}` }

const create = (url: string, i: number, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ name: `pet ${i}`, categoryId: 1 + (i % 7) }),
  })

// One GET on a connection of its own: after 500 creates, the connections fetch keeps may be the
// ones the service is closing at its keep-alive timeout, and a request sent on one is lost.
const getOnce = (url: string): Promise<{ status: number; link: string; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: AUTH }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, link: String(res.headers.link ?? ''), body }),
      )
    })
    req.on('error', reject)
    req.end()
  })

// The `next` links, followed from the first page to the last.
const walk = async (url: string): Promise<Array<number>> => {
  const ids: Array<number> = []
  for (let next: string | undefined = `${url}/v1/pets?limit=100`; next !== undefined;) {
    const res = await getOnce(next)
    expect(res.status).toBe(200)
    ids.push(...(JSON.parse(res.body) as Array<{ id: number }>).map((p) => p.id))
    const link = /<([^>]+)>;\s*rel="next"/.exec(res.link)?.[1]
    // The links name the public base URL: the same path and query on this instance.
    next = link === undefined ? undefined : `${url}${new URL(link).pathname}${new URL(link).search}`
  }
  return ids
}

const storageLine = (svc: ChildService) =>
  svc
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"storage: PostgreSQL"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)[0]

// Instances behind a load balancer, every one through one PgBouncer in transaction mode (10 server
// connections for the database) to one PostgreSQL; migrations and LISTEN on the direct URL.
describe('several instances through PgBouncer in transaction mode', () => {
  const pgbouncer = usePgBouncer({ poolSize: 10 })
  const cleanups: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const freshDatabase = async (): Promise<FreshDatabase> => {
    const database = await openFreshDatabase(inject('postgres'))
    cleanups.push(database.close)
    return database
  }
  const instances = async (env: Record<string, string>, count = 2) => {
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        startTestService({ mode: 'child', env: { API_KEYS: KEY, ...env }, timeoutMs: 30_000 }),
      ),
    )
    for (const svc of started) cleanups.push(() => svc.stop('SIGKILL'))
    return started
  }
  const envFor = async (database: FreshDatabase) => ({
    DATABASE_URL: (await pgbouncer()).through(database.url),
    DATABASE_DIRECT_URL: database.url,
  })

  it('gives 500 concurrent creates over two instances 500 distinct ids, each walked exactly once on both', async () => {
    const database = await freshDatabase()
    const [a, b] = await instances({
      ...(await envFor(database)),
      DATABASE_POOL_SIZE: '20',
      // Generous: this test is about ids, not about how fast a busy machine answers.
      DATABASE_CONNECT_TIMEOUT_MS: '20000',
      DATABASE_STATEMENT_TIMEOUT_MS: '20000',
      DATABASE_LOCK_TIMEOUT_MS: '20000',
    })
    for (const svc of [a!, b!])
      expect(storageLine(svc)).toMatchObject({
        requests: 'DATABASE_URL',
        migrations: 'DATABASE_DIRECT_URL',
        apiKeyChanges: 'DATABASE_DIRECT_URL',
        requestsReach: expect.stringMatching(/^a connection pooler/),
      })
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) => create(i % 2 ? b!.url : a!.url, i)),
    )
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201))
    const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as { id: number }).id))
    expect(new Set(ids).size).toBe(500)
    const sorted = [...ids].sort((x, y) => x - y)
    expect(await walk(a!.url)).toEqual(sorted)
    expect(await walk(b!.url)).toEqual(sorted)
  })

  it('performs one Idempotency-Key once for 50 concurrent requests over both instances', async () => {
    const database = await freshDatabase()
    const [a, b] = await instances({ ...(await envFor(database)), MIGRATE_ON_START: 'false' })
    const once = (url: string, name = 'Rex') =>
      fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json', 'Idempotency-Key': 'through-the-pooler' },
        body: JSON.stringify({ name, categoryId: 1 }),
      })
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => once(i % 2 ? b!.url : a!.url)))
    const id = await expectOneCreation(database.pool, answers)
    for (const url of [a!.url, b!.url]) {
      const again = await once(url)
      expect(again.status).toBe(201)
      expect(((await again.json()) as { id: number }).id).toBe(id)
      expect((await once(url, 'Tom')).status).toBe(422)
    }
  })

  it('hears a revocation on both instances: LISTEN on the direct URL, keys checked in memory', async () => {
    const database = await freshDatabase()
    const env = await envFor(database)
    const [a, b] = await instances(env)
    const cli = (...args: Array<string>) =>
      exec(process.execPath, [MAIN, ...args], {
        env: { PATH: process.env.PATH ?? '', API_KEYS: KEY, ...env },
      })
    const issued = (await cli('keys', 'create', '--name', 'partner')).stdout.trim().split('\n').at(-1)!
    rememberSecret(issued)
    const list = (url: string) => fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${issued}` } })
    for (const url of [a!.url, b!.url])
      await pollUntil(`${url} accepts the new key`, async () => (await list(url)).status === 200, 10_000)
    for (const svc of [a!, b!]) {
      expect(svc.output()).not.toContain('not hearing of changes')
      expect(svc.output()).not.toContain('LISTEN refused')
    }
    await cli('keys', 'revoke', '1')
    const [onA, onB] = await Promise.all([list(a!.url), list(b!.url)])
    expect([onA.status, onB.status]).toEqual([401, 401])
  })

  it('runs with DATABASE_URL alone through the pooler once the schema is there, refusing only migrations and LISTEN, and still honours a revocation', async () => {
    // Migrations need a session: through the pooler alone a database without the schema is refused.
    const empty = await openFreshDatabase(inject('postgres'), { empty: true })
    cleanups.push(empty.close)
    await expect(
      startTestService({
        mode: 'child',
        env: { API_KEYS: KEY, DATABASE_URL: (await pgbouncer()).through(empty.url) },
      }),
    ).rejects.toThrow(/Migrations did not run: they hold session advisory locks.*DATABASE_DIRECT_URL/s)
    // With the schema in place (migrated once, directly), nothing but DATABASE_URL is needed.
    const database = await freshDatabase()
    const pooled = (await pgbouncer()).through(database.url)
    const [svc] = await instances({ DATABASE_URL: pooled }, 1)
    expect(svc!.output()).toMatch(/migrations: up to date/)
    await pollUntil('the LISTEN refusal is logged', () => svc!.output().includes('LISTEN refused'), 15_000)
    const refusal = svc!
      .output()
      .split('\n')
      .find((l) => l.includes('LISTEN refused'))!
    expect(JSON.parse(refusal)).toMatchObject({
      level: 50,
      msg: expect.stringMatching(/DATABASE_DIRECT_URL/),
    })
    expect(svc!.output()).toMatch(
      /DATABASE_URL goes through a connection pooler and DATABASE_DIRECT_URL is not set/,
    )
    const cli = (...args: Array<string>) =>
      exec(process.execPath, [MAIN, ...args], {
        env: { PATH: process.env.PATH ?? '', API_KEYS: KEY, DATABASE_URL: pooled },
      })
    const issued = (await cli('keys', 'create', '--name', 'partner')).stdout.trim().split('\n').at(-1)!
    rememberSecret(issued)
    const list = () => fetch(`${svc!.url}/v1/pets`, { headers: { Authorization: `Bearer ${issued}` } })
    expect((await list()).status).toBe(200)
    await cli('keys', 'revoke', '1')
    expect((await list()).status).toBe(401)
  })

  it('answers only 201 or 503 while the database behind PgBouncer is away, and recovers by itself', async () => {
    const database = await freshDatabase()
    const target = new URL(database.url)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    cleanups.push(proxy.close)
    // A PgBouncer of its own, whose server is the proxy: the database goes away behind the pooler.
    const own = await startTestPgBouncer(inject('postgres').url, {
      ownProcess: true,
      serverHost: '127.0.0.1',
      serverPort: proxy.port,
    })
    cleanups.push(own.stop)
    const [svc] = await instances(
      {
        DATABASE_URL: own.through(database.url),
        DATABASE_DIRECT_URL: database.url,
        DATABASE_CONNECT_TIMEOUT_MS: '500',
        DATABASE_STATEMENT_TIMEOUT_MS: '1000',
        READY_TIMEOUT_MS: '300',
        MIGRATE_ON_START: 'false',
      },
      1,
    )
    const load = startLoad(8, (requestId) =>
      fetch(`${svc!.url}/v1/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
        body: JSON.stringify({ name: requestId, categoryId: 1 }),
      }),
    )
    const readiness: Array<number> = []
    const probe = async () => readiness.push((await fetch(`${svc!.url}/readyz`)).status)
    await pollUntil('the load adds pets', () => load.sent.some((s) => s.status === 201), 10_000)
    // Each phase lasts until a request sent into it has its answer.
    const from = Date.now()
    proxy.cut()
    await pollUntil('a request sent into the cut ends', () => load.endedSince(from + 100), 10_000)
    await probe()
    const stalledAt = Date.now()
    proxy.stall()
    await pollUntil('a request sent into the stall ends', () => load.endedSince(stalledAt), 10_000)
    await probe()
    proxy.restore()
    const to = Date.now()
    // PgBouncer connects to the server again after server_login_retry (1 s here, as the README asks).
    const recoveryMs = 3_000
    await pollUntil(
      'writes succeed again',
      async () => (await create(svc!.url, 0)).status === 201,
      recoveryMs + 5_000,
    )
    await pollUntil(
      `a request sent ${recoveryMs} ms after the return ends`,
      () => load.endedSince(to + recoveryMs),
      recoveryMs + 10_000,
    )
    // Ready again from a check after the return (one every READY_CHECK_EVERY_MS, 1 s); on a busy machine that
    // check may be the next one, so the answer is waited for rather than taken once.
    await pollUntil(
      '/readyz says ready again',
      async () => (await fetch(`${svc!.url}/readyz`)).status === 200,
      5_000,
    )
    readiness.push(200)
    const sent = await load.stop()

    const during = (s: Sent) => s.startedAt >= from + 100 && (s.endedAt ?? 0) <= to
    const recovered = (s: Sent) => s.startedAt >= to + recoveryMs
    expect(sent.filter((s) => s.status !== 201 && s.status !== 503)).toEqual([])
    for (const s of sent.filter((s) => s.status === 503)) expect(s.retryAfter).toMatch(/^\d+$/)
    expect(sent.filter(during).length).toBeGreaterThan(0)
    expect(sent.filter(during).every((s) => s.status === 503)).toBe(true)
    expect(sent.filter(recovered).length).toBeGreaterThan(0)
    expect(sent.filter(recovered).map((s) => s.status)).toEqual(sent.filter(recovered).map(() => 201))
    expect(readiness).toEqual([503, 503, 200])
    const created = sent.filter((s) => s.status === 201).map((s) => (s.body as { id: number }).id)
    const { rows } = await database.pool.query<{ id: string }>(
      'SELECT id FROM pets WHERE id = ANY($1::int8[])',
      [created],
    )
    expect(rows).toHaveLength(created.length)
    expect(svc!.output()).not.toContain('"status":500')
  })
})
