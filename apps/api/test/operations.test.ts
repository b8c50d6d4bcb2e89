import { createPostgresApiKeyUsageLog } from '@pets/adapters-postgres'
import { run } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import {
  startTestService,
  TEST_KEYS,
  type TestService,
  type TestServiceOptions,
} from './support/test-service.js'

const byOperation = (a: Array<unknown>, b: Array<unknown>) => String(a[1]).localeCompare(String(b[1]))

const post = (svc: TestService, body: unknown) =>
  fetch(`${svc.url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_KEYS[0]}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })

// The value of one sample of the exposition, such as `http_requests_total{…}`.
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  const line = text
    .split('\n')
    .find(
      (l) =>
        (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((label) => l.includes(label)),
    )
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

describe('the operations endpoints and request logs of the service', () => {
  const started: Array<TestService> = []
  const start = async (options: TestServiceOptions = {}) => {
    const svc = await startTestService(options)
    started.push(svc)
    return svc
  }
  afterEach(async () => {
    await Promise.all(started.splice(0).map((svc) => svc.close()))
  })

  it('/readyz is 200 on the in-memory store and on a PostgreSQL that answers', async () => {
    for (const storage of ['memory', 'postgres'] as const) {
      const res = await (await start({ storage })).get('/readyz')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'ready' })
    }
  })

  it('/readyz is 503 unavailable when PostgreSQL cannot be reached, while /healthz stays 200', async () => {
    const svc = await start({
      env: {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
        MIGRATE_ON_START: 'false',
        DATABASE_CONNECT_TIMEOUT_MS: '200',
        READY_TIMEOUT_MS: '500',
      },
    })
    const res = await svc.get('/readyz')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(await res.json()).toMatchObject({ code: 'unavailable', status: 503 })
    expect((await svc.get('/healthz')).status).toBe(200)
  })

  it('/readyz turns 503 the moment the service drains, while every other request is still served', async () => {
    const svc = await start()
    svc.service.lifecycle.drain()
    const res = await svc.get('/readyz')
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/shutting down/),
    })
    expect((await svc.get('/v1/pets', TEST_KEYS[0])).status).toBe(200)
    expect((await svc.get('/healthz')).status).toBe(200)
  })

  it('/metrics counts requests by route template and status, times them, and says who calls getPet', async () => {
    const svc = await start()
    await post(svc, { name: 'Rex', categoryId: 1 })
    await svc.get('/v1/pets/1', TEST_KEYS[0])
    await svc.get('/v1/pets/2', TEST_KEYS[0])
    await svc.get('/v1/pets/1', TEST_KEYS[1])
    await svc.get('/v1/pets')
    const res = await svc.get('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    const requests = (labels: Record<string, string>) => sample(text, 'http_requests_total', labels)
    expect(requests({ method: 'POST', route: '/v1/pets', status: '201' })).toBe(1)
    expect(requests({ method: 'GET', route: '/v1/pets/{petId}', status: '200' })).toBe(2)
    expect(requests({ method: 'GET', route: '/v1/pets/{petId}', status: '404' })).toBe(1)
    expect(requests({ method: 'GET', route: 'none', status: '401' })).toBe(1)
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/v1/pets/{petId}' })).toBe(3)
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v1\/pets\/\{petId\}"\}/,
    )
    const deprecated = (keyId: string) =>
      sample(text, 'deprecated_operation_calls_total', { operation: 'getPet', key_id: keyId })
    expect(deprecated('env-1')).toBe(2)
    expect(deprecated('env-2')).toBe(1)
    expect(text).toContain('process_cpu_user_seconds_total')
    expect(text).toContain('nodejs_heap_size_used_bytes')
    expect(text).not.toContain('pg_pool_connections')
    expect(text).not.toContain(TEST_KEYS[0])
  })

  it('/metrics shows the PostgreSQL pool: connections, in use and idle, and waiting queries', async () => {
    const svc = await start({ storage: 'postgres' })
    await svc.get('/v1/pets', TEST_KEYS[0])
    const text = await (await svc.get('/metrics')).text()
    expect(sample(text, 'pg_pool_connections')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'pg_pool_idle_connections')).toBeGreaterThanOrEqual(0)
    expect(sample(text, 'pg_pool_in_use_connections')).toBe(
      sample(text, 'pg_pool_connections')! - sample(text, 'pg_pool_idle_connections')!,
    )
    expect(sample(text, 'pg_pool_waiting_clients')).toBe(0)
  })

  it('keeps the metrics of two services in one process apart', async () => {
    const [a, b] = await Promise.all([start(), start()])
    await a!.get('/v1/pets', TEST_KEYS[0])
    await a!.get('/v1/pets', TEST_KEYS[0])
    await b!.get('/v1/pets', TEST_KEYS[0])
    const count = async (svc: TestService) =>
      sample(await (await svc.get('/metrics')).text(), 'http_requests_total', {
        route: '/v1/pets',
        status: '200',
      })
    expect(await count(a!)).toBe(2)
    expect(await count(b!)).toBe(1)
  })

  it('logs one JSON line per request: method, route template, status, duration, request id, key id, never the key', async () => {
    const svc = await start()
    await fetch(`${svc.url}/v1/pets/42`, {
      headers: { Authorization: `Bearer ${TEST_KEYS[1]}`, 'X-Request-Id': 'trace-me' },
    })
    const lines = svc.logs().filter((l) => l['requestId'] === 'trace-me')
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request',
        level: 30,
        method: 'GET',
        route: '/v1/pets/{petId}',
        operation: 'getPet',
        status: 404,
        durationMs: expect.any(Number),
        apiKeyId: 'env-2',
      }),
    ])
    expect(svc.logText()).not.toContain(TEST_KEYS[1])
  })

  it('answers a defect with 500 internal_error, logged once with its request id, without details', async () => {
    const svc = await start({ storage: 'postgres' })
    // A schema the code does not expect: the query fails with an error that is no outage.
    await svc.database!.pool.query('ALTER TABLE pets RENAME TO pets_elsewhere')
    const res = await fetch(`${svc.url}/v1/pets`, {
      headers: { Authorization: `Bearer ${TEST_KEYS[0]}`, 'X-Request-Id': 'defect-1' },
    })
    expect(res.status).toBe(500)
    const body = await res.text()
    expect(JSON.parse(body)).toEqual({ code: 'internal_error', message: expect.any(String), status: 500 })
    expect(body).not.toMatch(/pets|relation|42P01/)
    const lines = svc.logs().filter((l) => l['requestId'] === 'defect-1')
    expect(lines.map((l) => [l['level'], l['msg']])).toEqual([
      [50, 'request failed'],
      [30, 'request'],
    ])
    expect(lines[0]).toMatchObject({ err: { message: expect.stringMatching(/pets/) } })
  })

  it('counts the calls of each key per operation in PostgreSQL, in batches', async () => {
    const svc = await start({ storage: 'postgres', env: { USAGE_FLUSH_MS: '100' } })
    await post(svc, { name: 'Rex', categoryId: 1 })
    await svc.get('/v1/pets/1', TEST_KEYS[1])
    await svc.get('/v1/pets/1', TEST_KEYS[1])
    await svc.get('/v1/pets')
    const log = createPostgresApiKeyUsageLog(svc.database!.db)
    await expect
      .poll(
        async () => (await run(log.list())).map((c) => [c.keyId, c.operation, c.calls]).sort(byOperation),
        {
          timeout: 5_000,
        },
      )
      .toEqual([
        ['env-1', 'createPet', 1],
        ['env-2', 'getPet', 2],
      ])
  })
})
