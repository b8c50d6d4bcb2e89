import { openFreshDatabase, startPostgresProxy, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import type { Middleware } from 'koa'
import { connect } from 'node:net'
import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import {
  startTestService,
  TEST_KEYS,
  type TestService,
  type TestServiceOptions,
} from './support/test-service.js'

const KEY = 'a-key-long-enough-for-production-0123456789'

// The value of one sample of an exposition, or undefined when it has none.
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((label) => l.includes(label)))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

/**
 * A TCP proxy in front of PostgreSQL that counts the queries passing through it: the Query and
 * Parse messages of the frontend protocol, after each connection's startup message.
 */
const countingProxy = async (target: URL) => {
  let queries = 0
  const proxy = await startPostgresProxy(target.toString(), () => {
    let pending = Buffer.alloc(0)
    let started = false
    return {
      toServer: (chunk, send) => {
        send(chunk)
        pending = Buffer.concat([pending, chunk])
        for (;;) {
          const header = started ? 5 : 4
          if (pending.length < header) break
          const length = pending.readInt32BE(started ? 1 : 0) + (started ? 1 : 0)
          if (pending.length < length) break
          if (started && (pending[0] === 0x51 || pending[0] === 0x50)) queries++ // 'Q', 'P'
          started = true
          pending = pending.subarray(length)
        }
      },
    }
  })
  return { ...proxy, queries: () => queries }
}

describe('the service against strangers (in-process)', () => {
  const started: Array<TestService> = []
  const closers: Array<() => Promise<void>> = []
  const start = async (options: TestServiceOptions = {}) => {
    const svc = await startTestService(options)
    started.push(svc)
    return svc
  }
  afterEach(async () => {
    await Promise.all(started.splice(0).map((svc) => svc.close()))
    for (const close of closers.splice(0).reverse()) await close()
  })

  it('asks PostgreSQL at most once a second for /readyz, however many probes come at once', async () => {
    const database: FreshDatabase = await openFreshDatabase(inject('postgres'))
    closers.push(() => database.close())
    // An expired idempotency record: the line of the cleanup that removes it says its queries are done.
    const expired = `WITH pet AS (INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'available') RETURNING id)
      INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
      SELECT 'env-1', 'expired', 'f', id, now() - interval '30 hours' FROM pet`
    await database.pool.query(expired)
    const proxy = await countingProxy(new URL(database.url))
    closers.push(proxy.close)
    const svc = await start({
      env: {
        DATABASE_URL: proxy.url,
        MIGRATE_ON_START: 'false',
        USAGE_FLUSH_MS: '3600000',
        IDEMPOTENCY_CLEANUP_MS: '86400000',
      },
    })
    // Whatever starting up asked is done: the key index is loaded (before listening), the first
    // cleanup has run.
    await pollUntil('the first cleanup has run', () =>
      svc.logs().some((l) => l['msg'] === 'expired idempotency records removed'),
    )
    // The clock of /readyz's sharedCheck (performance.now) is the test's from here on.
    vi.useFakeTimers({ toFake: ['performance'] })
    try {
      const before = proxy.queries()
      const startedAt = performance.now()
      // 600 probes in 1.5 s, 60 at a time.
      for (let round = 0; round < 10; round++) {
        const answers = await Promise.all(Array.from({ length: 60 }, () => svc.get('/readyz')))
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 60 }, () => 200))
        vi.advanceTimersByTime(150)
      }
      const seconds = (performance.now() - startedAt) / 1000
      // One check per started second, and one more for the edges.
      expect(proxy.queries() - before).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('counts a client that went away apart, logs it at info as aborted, and never as a 500', async () => {
    // Holds the request until its client has left (node has closed its answer), then serves it.
    let arrived = () => {}
    const held = new Promise<void>((resolve) => (arrived = resolve))
    const hold: Middleware = async (ctx, next) => {
      if (ctx.get('X-Request-Id') === 'gone-1') {
        arrived()
        if (!ctx.res.destroyed) await new Promise((resolve) => ctx.res.once('close', resolve))
      }
      await next()
    }
    const svc = await start({ adjust: (s) => void s.app.middleware.unshift(hold) })
    const body = '{"name":"Rex","categoryId":1}'
    const socket = connect(Number(new URL(svc.url).port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEYS[0]}\r\nX-Request-Id: gone-1\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
    await held
    socket.destroy()
    await expect.poll(() => svc.logs().filter((l) => l['requestId'] === 'gone-1').length).toBe(1)
    const [line] = svc.logs().filter((l) => l['requestId'] === 'gone-1')
    expect(line).toMatchObject({ level: 30, msg: 'request', aborted: true })
    expect(svc.logs().filter((l) => Number(l['level']) >= 50)).toEqual([])
    const text = await (await svc.get('/metrics')).text()
    expect(sample(text, 'http_requests_aborted_total', { method: 'POST', route: '/v1/pets' })).toBe(1)
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/v1/pets' })).toBeUndefined()
  })

  it('logs an error of the server and goes on serving, the second one too', async () => {
    const svc = await start()
    const server = svc.running.server
    for (const code of ['EMFILE', 'ENFILE'])
      server.emit('error', Object.assign(new Error(`accept ${code}`), { code }))
    expect((await svc.get('/healthz')).status).toBe(200)
    const errors = svc
      .logs()
      .filter((l) => l['msg'] === 'the HTTP server reported an error; it goes on serving')
    expect(errors.map((l) => (l['err'] as { code: string }).code)).toEqual(['EMFILE', 'ENFILE'])
  })

  it('serves /metrics on METRICS_PORT alone: 404 on the public listener', async () => {
    const svc = await start({ env: { METRICS_PORT: '0' } })
    const metricsUrl = svc.running.metricsUrl
    expect(metricsUrl).toBeDefined()
    expect(metricsUrl).not.toBe(svc.url)
    const scraped = await fetch(`${metricsUrl}/metrics`)
    expect(scraped.status).toBe(200)
    expect(await scraped.text()).toContain('http_requests_total')
    const publicly = await svc.get('/metrics')
    expect(publicly.status).toBe(404)
    expect(await publicly.json()).toMatchObject({ code: 'not_found' })
    expect((await fetch(`${metricsUrl}/v1/pets`)).status).toBe(404)
    expect((await svc.get('/healthz')).status).toBe(200)
  })

  it('publishes no id derived from a key alone: named keys by their name, others by an HMAC or their place', async () => {
    const named = await start({ env: { API_KEYS: `billing:${KEY}` } })
    await named.get('/v1/pets/1', KEY)
    const text = await (await named.get('/metrics')).text()
    expect(text).toContain('deprecated_operation_calls_total{operation="getPet",key_id="env-billing"} 1')
    expect(named.logs().find((l) => l['route'] === '/v1/pets/{petId}')).toMatchObject({
      apiKeyId: 'env-billing',
    })

    const secret = 'a-deployment-secret-of-32-chars!'
    const hashed = await start({ env: { API_KEYS: KEY, API_KEY_ID_SECRET: secret } })
    await hashed.get('/v1/pets/1', KEY)
    const id = hashed.logs().find((l) => l['route'] === '/v1/pets/{petId}')?.['apiKeyId']
    expect(id).toMatch(/^env-[0-9a-f]{12}$/)
    const { createHash, createHmac } = await import('node:crypto')
    expect(id).not.toBe(`env-${createHash('sha256').update(KEY).digest('hex').slice(0, 12)}`)
    expect(id).toBe(`env-${createHmac('sha256', secret).update(KEY).digest('hex').slice(0, 12)}`)
  })

  it('logs the client address, from X-Forwarded-For only from the proxies TRUST_PROXY names, and the path of a scan', async () => {
    const direct = await start()
    await fetch(`${direct.url}/wp-login.php?user=admin`, { headers: { 'X-Forwarded-For': '203.0.113.5' } })
    expect(direct.logs().find((l) => l['msg'] === 'request')).toMatchObject({
      clientAddress: '127.0.0.1',
      path: '/wp-login.php',
      status: 404,
    })
    // The test's requests come from 127.0.0.1: a proxy when TRUST_PROXY names it, a client when not.
    for (const [trusted, clientAddress] of [
      ['1', '203.0.113.5'],
      ['127.0.0.0/8', '203.0.113.5'],
      ['10.0.0.0/8, 192.0.2.10', '127.0.0.1'],
    ] as const) {
      const proxied = await start({ env: { TRUST_PROXY: trusted } })
      await fetch(`${proxied.url}/v1/pets`, { headers: { 'X-Forwarded-For': 'spoofed, 203.0.113.5' } })
      expect(
        proxied.logs().find((l) => l['msg'] === 'request'),
        trusted,
      ).toMatchObject({
        clientAddress,
        path: '/v1/pets',
        status: 401,
      })
    }
  })
})
