import { createMemoryApiKeyUsageLog } from '@pets/adapters-memory'
import { run, type EveryOptionUndefined } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  createService,
  createServiceMetrics,
  createUsageCounter,
  loadConfig,
  startServer,
  type AppConfig,
  type ConfigContext,
  type ServiceOptions,
  type StorageConfig,
} from '../src/index.js'

type PostgresConfig = Extract<StorageConfig, { kind: 'postgres' }>
type TracingConfig = NonNullable<AppConfig['tracing']>

const KEY = 'a-test-key'

const loaded = (context: ConfigContext) => {
  const config = loadConfig({ API_KEYS: KEY, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }, context)
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  return config.right
}

describe('an option given as undefined is its default, as one left out is', () => {
  it('loadConfig: no terminal, a running service (JSON lines in development)', () => {
    const context: EveryOptionUndefined<ConfigContext> = { stdoutIsTty: undefined, describeOnly: undefined }
    expect(loaded(context)).toEqual(loaded({}))
    expect(loaded(context).logFormat).toBe('json')
  })

  it('startServer and createService: the bound URL as the public one, /metrics on it, no rate limit', async () => {
    const unset: EveryOptionUndefined<AppConfig> = {
      publicBaseUrl: undefined,
      apiKeyIdSecret: undefined,
      unheededNodeEnv: undefined,
      clockNow: undefined,
      rateLimit: undefined,
      authFailureLimit: undefined,
      trustedProxies: undefined,
      metricsPort: undefined,
      tracing: undefined,
    }
    const config: AppConfig = { ...loaded({}), ...unset }
    const options: EveryOptionUndefined<ServiceOptions> = {
      clock: undefined,
      logger: undefined,
      migrate: undefined,
      metricsPage: undefined,
      spans: undefined,
    }
    const running = await startServer(config, (resolved) => createService(resolved, options))
    try {
      expect(running.publicBaseUrl).toBe(`${running.url}/v1`)
      expect(running.metricsUrl).toBeUndefined()
      const headers = { Authorization: `Bearer ${KEY}` }
      expect((await fetch(`${running.url}/v1/pets`, { headers })).status).toBe(200)
      expect((await fetch(`${running.url}/metrics`)).status).toBe(200)
      const added = await fetch(`${running.url}/v1/pets`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      })
      expect(added.headers.get('location')).toBe(`${running.url}/v1/pets/1`)
      expect((await fetch(`${running.url}/v1/pets/1`, { headers })).status).toBe(200)
    } finally {
      await running.stop()
    }
  })

  it('the storage and tracing configurations: a session on the url, a ratio of 1', () => {
    // The defaults as config.test.ts pins them, read from the environment; the optional ones listed here.
    const read = loadConfig(
      { API_KEYS: KEY, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' },
      {},
    )
    if (E.isLeft(read) || read.right.storage.kind !== 'postgres')
      throw new Error('no PostgreSQL configuration')
    const storage: PostgresConfig & EveryOptionUndefined<PostgresConfig> = {
      ...read.right.storage,
      directUrl: undefined,
    }
    const tracing: TracingConfig & EveryOptionUndefined<TracingConfig> = {
      url: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'animal-store',
      resourceAttributes: {},
      sampler: 'traceidratio',
      samplerArg: undefined,
    }
    const config: AppConfig = { ...loaded({}), storage, tracing }
    expect(config.storage).toMatchObject({ kind: 'postgres', directUrl: undefined })
  })

  it('createServiceMetrics and createUsageCounter: no pool gauges, the machine clock, no info line', async () => {
    const metrics = createServiceMetrics({ deprecatedOperations: [], pool: undefined, spans: undefined })
    const page = await metrics.page()
    expect(page.body).not.toContain('pg_pool_connections')
    expect(page.body).not.toContain('tracing_spans_total')
    const log = createMemoryApiKeyUsageLog()
    const lines: Array<string> = []
    const usage = createUsageCounter({
      log,
      flushEveryMs: 60_000,
      logger: { info: undefined, warn: (_, m) => void lines.push(m), error: (_, m) => void lines.push(m) },
      now: undefined,
    })
    const before = Date.now()
    usage.count('key-1', 'listPets')
    await usage.close()
    const [counted] = await run(log.list())
    expect(counted).toMatchObject({ keyId: 'key-1', operation: 'listPets', calls: 1 })
    expect(counted!.lastCalledAt.getTime()).toBeGreaterThanOrEqual(before)
    expect(lines).toEqual([])
  })
})
