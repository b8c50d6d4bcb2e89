import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

const load = (env: Record<string, string>) => loadConfig(env)
// A key production accepts: 32 characters at least (config-hostile.test.ts).
const LONG_KEY = 'k'.repeat(32)
const problems = (env: Record<string, string>) => {
  const result = load(env)
  if (E.isRight(result)) throw new Error('expected the configuration to be refused')
  return result.left
}
const config = (env: Record<string, string>) => {
  const result = load(env)
  if (E.isLeft(result)) throw new Error(result.left.join('; '))
  return result.right
}

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    expect(config({})).toEqual({
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      apiKeys: [],
      generateApiKey: true,
      logLevel: 'info',
      logFormat: 'json',
      storage: { kind: 'memory' },
      shutdownDelayMs: 0,
      shutdownGraceMs: 10000,
      readyTimeoutMs: 1000,
      usageFlushMs: 5000,
      webConcurrency: 1,
      idempotencyCleanupMs: 600000,
      headersTimeoutMs: 10000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 10000,
    })
  })

  it('reads every variable', () => {
    expect(
      config({
        APP_ENV: 'staging',
        HOST: '0.0.0.0',
        PORT: '8080',
        PUBLIC_BASE_URL: 'https://staging-api.example.com/v1/',
        API_KEYS: 'k1, k2',
        LOG_LEVEL: 'warn',
        CLOCK_NOW: '2030-12-05T00:00:00Z',
        HEADERS_TIMEOUT_MS: '2000',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
        MAX_CONNECTIONS: '500',
      }),
    ).toMatchObject({
      headersTimeoutMs: 2000,
      keepAliveTimeoutMs: 65000,
      maxConnections: 500,
      env: 'staging',
      host: '0.0.0.0',
      port: 8080,
      publicBaseUrl: 'https://staging-api.example.com/v1',
      apiKeys: ['k1', 'k2'],
      generateApiKey: false,
      logLevel: 'warn',
      clockNow: new Date('2030-12-05T00:00:00Z'),
    })
  })

  it('generates a key only in development and only when API_KEYS is unset', () => {
    expect(config({ API_KEYS: 'k' }).generateApiKey).toBe(false)
    expect(config({ APP_ENV: 'staging' }).generateApiKey).toBe(false)
  })

  it('names every bad variable once, with what it must be, and never its value', () => {
    const found = problems({
      PORT: '70000',
      HOST: '',
      APP_ENV: 'Production',
      PUBLIC_BASE_URL: 'ftp://example.com',
      API_KEYS: 'secret,,',
      LOG_LEVEL: 'loud',
      CLOCK_NOW: 'tomorrow',
    })
    expect(found).toEqual([
      'APP_ENV must be one of development, staging, production',
      'PORT must be an integer from 0 to 65535',
      'PUBLIC_BASE_URL must be an absolute http or https URL whose path ends in /v1, without query, fragment, user or password, such as https://api.example.com/v1',
      'API_KEYS must be a comma-separated list of keys of visible ASCII characters, none empty',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      'CLOCK_NOW must be an ISO 8601 instant with a time zone, such as 2030-12-05T00:00:00Z',
    ])
    expect(found.join(' ')).not.toContain('secret')
  })

  it('takes a PUBLIC_BASE_URL whose path ends in /v1, and no other: never one with credentials, which every Location would carry', () => {
    for (const url of [
      'https://api.example.com/v1',
      'http://10.0.0.1:8080/pets/v1/',
      'https://x.example/v1//',
    ])
      expect(E.isRight(load({ PUBLIC_BASE_URL: url })), url).toBe(true)
    for (const url of [
      'https://user:s3cret@api.example.com/v1',
      'https://user@api.example.com/v1',
      'https://api.example.com',
      'https://api.example.com/v2',
      'https://api.example.com/v1?x=1',
      'https://api.example.com/v10',
    ]) {
      const found = problems({ PUBLIC_BASE_URL: url })
      expect(found, url).toHaveLength(1)
      expect(found[0]).toMatch(
        /^PUBLIC_BASE_URL must be an absolute http or https URL whose path ends in \/v1/,
      )
      expect(found[0]).not.toContain('s3cret')
    }
  })

  it('writes PUBLIC_BASE_URL as its URL serialization, in ASCII, so that every Location and Link can carry it', () => {
    // Kept as given, a host in another script made node refuse the Location header: a 500 after the pet was
    // added; a space or `>` broke the URI-reference of every Link.
    for (const [given, written] of [
      ['https://例え.jp/v1', 'https://xn--r8jz45g.jp/v1'],
      ['https://bücher.example/v1/', 'https://xn--bcher-kva.example/v1'],
      ['https://api.example.com/a b/a>b/v1', 'https://api.example.com/a%20b/a%3Eb/v1'],
      ['https://API.Example.com:443/v1', 'https://api.example.com/v1'],
      ['http://10.0.0.1:8080/pets/v1', 'http://10.0.0.1:8080/pets/v1'],
    ] as const)
      expect(config({ PUBLIC_BASE_URL: given }).publicBaseUrl, given).toBe(written)
  })

  it('refuses production without PostgreSQL, and CLOCK_NOW in production', () => {
    expect(
      problems({ APP_ENV: 'production', API_KEYS: `billing:${LONG_KEY}`, CLOCK_NOW: '2030-01-01T00:00:00Z' }),
    ).toEqual([
      'APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)',
      'CLOCK_NOW is refused in production',
    ])
  })

  it('runs as APP_ENV says, never as NODE_ENV does, and notes a deployment NODE_ENV names that is not heeded', () => {
    // CONTRACT: APP_ENV chooses the environment, development by default; the start warns of NODE_ENV=production.
    expect(config({ NODE_ENV: 'production' })).toMatchObject({
      env: 'development',
      unheededNodeEnv: 'production',
    })
    expect(config({ NODE_ENV: 'staging' })).toMatchObject({ env: 'development', unheededNodeEnv: 'staging' })
    expect(config({ NODE_ENV: 'production', APP_ENV: 'development' })).not.toHaveProperty('unheededNodeEnv')
    for (const other of ['test', 'development', 'prod'])
      expect(config({ NODE_ENV: other })).not.toHaveProperty('unheededNodeEnv')
  })

  it('names both the database and the API key when production has neither', () => {
    expect(problems({ APP_ENV: 'production' })).toEqual([
      'APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)',
      'APP_ENV=production needs at least one API key: set API_KEYS',
    ])
  })

  it('accepts production with DATABASE_URL alone: the keys may be stored there, which is checked at start', () => {
    expect(config({ APP_ENV: 'production', DATABASE_URL: 'postgres://db/animals' })).toMatchObject({
      env: 'production',
      apiKeys: [],
      generateApiKey: false,
    })
  })

  it('waits 5 s before closing the listener outside development, and not at all in development', () => {
    expect(config({}).shutdownDelayMs).toBe(0)
    expect(config({ APP_ENV: 'staging' }).shutdownDelayMs).toBe(5000)
    const url = 'postgres://db/animals'
    expect(
      config({ APP_ENV: 'production', DATABASE_URL: url, API_KEYS: `billing:${LONG_KEY}` }).shutdownDelayMs,
    ).toBe(5000)
    expect(config({ APP_ENV: 'staging', SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs).toBe(0)
  })

  it('reads the settings of shutdown, readiness, usage counts and workers', () => {
    expect(
      config({
        DATABASE_URL: 'postgres://db/animals',
        SHUTDOWN_DELAY_MS: '250',
        SHUTDOWN_GRACE_MS: '3000',
        READY_TIMEOUT_MS: '300',
        USAGE_FLUSH_MS: '1000',
        WEB_CONCURRENCY: '4',
      }),
    ).toMatchObject({
      shutdownDelayMs: 250,
      shutdownGraceMs: 3000,
      readyTimeoutMs: 300,
      usageFlushMs: 1000,
      webConcurrency: 4,
    })
  })

  it('names each bad setting of shutdown, readiness, usage counts and workers', () => {
    expect(
      problems({
        SHUTDOWN_DELAY_MS: '-1',
        SHUTDOWN_GRACE_MS: '1.5',
        READY_TIMEOUT_MS: '0',
        USAGE_FLUSH_MS: '10',
        WEB_CONCURRENCY: '0',
      }),
    ).toEqual([
      'SHUTDOWN_DELAY_MS must be an integer from 0 to 600000',
      'SHUTDOWN_GRACE_MS must be an integer from 0 to 600000',
      'READY_TIMEOUT_MS must be an integer from 1 to 60000',
      'USAGE_FLUSH_MS must be an integer from 100 to 3600000',
      'WEB_CONCURRENCY must be an integer from 1 to 256',
    ])
  })

  it('refuses several workers on the in-memory store, where each would keep pets of its own', () => {
    expect(problems({ WEB_CONCURRENCY: '2' })).toEqual([
      'WEB_CONCURRENCY above 1 needs PostgreSQL: each worker would keep pets of its own in memory',
    ])
  })

  it('writes readable lines by default only in development at a terminal, else JSON lines', () => {
    const tty = (env: Record<string, string>) => loadConfig(env, { stdoutIsTty: true })
    expect(tty({})).toMatchObject(E.right({ logFormat: 'pretty' }))
    expect(tty({ APP_ENV: 'staging' })).toMatchObject(E.right({ logFormat: 'json' }))
    expect(tty({ LOG_FORMAT: 'json' })).toMatchObject(E.right({ logFormat: 'json' }))
    expect(config({}).logFormat).toBe('json')
    expect(config({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty')
  })

  it('chooses PostgreSQL when DATABASE_URL is set, unless STORAGE=memory', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/animals'
    expect(config({ DATABASE_URL: url }).storage).toEqual({
      kind: 'postgres',
      url,
      poolSize: 10,
      maxLifetimeSeconds: 300,
      connectionTimeoutMs: 1000,
      statementTimeoutMs: 750,
      lockTimeoutMs: 500,
      idleInTransactionTimeoutMs: 2000,
      idempotencyClock: 'database',
      migrateOnStart: true,
      insertsAlone: false,
    })
    expect(config({ DATABASE_URL: url, STORAGE: 'memory' }).storage).toEqual({ kind: 'memory' })
    expect(problems({ STORAGE: 'postgres' })).toEqual(['STORAGE=postgres needs DATABASE_URL'])
    // Alone it would be ignored, pets kept in memory without a word.
    expect(problems({ DATABASE_DIRECT_URL: url })).toEqual([
      'DATABASE_DIRECT_URL needs DATABASE_URL (where requests go)',
    ])
    expect(problems({ DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL must be a postgres:// or postgresql:// connection URL',
    ])
    // Several hosts, as libpq writes them: read in full when the storage opens (connection-targets.ts).
    const several = 'postgres://app@n1:5432,n2:5433/pets?target_session_attrs=read-write'
    expect(config({ DATABASE_URL: several }).storage).toMatchObject({ kind: 'postgres', url: several })
    // What cannot be honoured is refused by name, never quoting the password.
    expect(problems({ DATABASE_URL: 'postgres://app:s3cret@n1,n2/pets?foo=1' })).toEqual([
      'DATABASE_URL is refused: unknown parameter "foo"',
    ])
    expect(
      problems({
        DATABASE_DIRECT_URL: 'postgres://app:s3cret@n1/pets?target_session_attrs=writable',
        DATABASE_URL: url,
      }),
    ).toEqual([
      'DATABASE_DIRECT_URL is refused: parameter target_session_attrs has a bad value "writable" (any, read-write, read-only, primary, standby, prefer-standby)',
    ])
  })
})

describe('rate limits and idempotency records in the configuration', () => {
  it('sets no rate limit unless RATE_LIMIT_PER_SECOND is set', () => {
    expect(config({}).rateLimit).toBeUndefined()
  })

  it('reads the rate and the burst', () => {
    expect(config({ RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '50' }).rateLimit).toEqual({
      perSecond: 10,
      burst: 50,
    })
    expect(config({ RATE_LIMIT_PER_SECOND: '0.5', RATE_LIMIT_BURST: '3' }).rateLimit).toEqual({
      perSecond: 0.5,
      burst: 3,
    })
  })

  it('lets a key spend one second of its rate at once when no burst is set', () => {
    expect(config({ RATE_LIMIT_PER_SECOND: '20' }).rateLimit).toEqual({ perSecond: 20, burst: 20 })
    expect(config({ RATE_LIMIT_PER_SECOND: '2.5' }).rateLimit).toEqual({ perSecond: 2.5, burst: 3 })
    expect(config({ RATE_LIMIT_PER_SECOND: '0.1' }).rateLimit).toEqual({ perSecond: 0.1, burst: 1 })
  })

  it.each(['0', '-1', 'ten', '1e3', '1000001', '.5', ' 5', '5 per second'])(
    'refuses RATE_LIMIT_PER_SECOND=%s, naming it',
    (value) => {
      expect(problems({ RATE_LIMIT_PER_SECOND: value })).toEqual([
        'RATE_LIMIT_PER_SECOND must be a number of requests per second above 0 and at most 1000000, such as 10 or 0.5',
      ])
    },
  )

  it.each(['0', '1.5', '-2', 'many', '1000001'])('refuses RATE_LIMIT_BURST=%s, naming it', (value) => {
    expect(problems({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: value })).toEqual([
      'RATE_LIMIT_BURST must be an integer from 1 to 1000000',
    ])
  })

  it('refuses a burst without a rate', () => {
    expect(problems({ RATE_LIMIT_BURST: '5' })).toEqual(['RATE_LIMIT_BURST needs RATE_LIMIT_PER_SECOND'])
  })

  it('reads how often expired idempotency records are removed, and refuses a bad value', () => {
    expect(config({ IDEMPOTENCY_CLEANUP_MS: '60000' }).idempotencyCleanupMs).toBe(60000)
    expect(problems({ IDEMPOTENCY_CLEANUP_MS: '10' })).toEqual([
      'IDEMPOTENCY_CLEANUP_MS must be an integer from 100 to 86400000',
    ])
  })
})
