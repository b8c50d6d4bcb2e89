import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

const load = (env: Record<string, string>) => loadConfig(env)
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
      shutdownGraceMs: 10000,
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
      }),
    ).toMatchObject({
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
      'PUBLIC_BASE_URL must be an absolute http or https URL without query or fragment',
      'API_KEYS must be a comma-separated list of keys of visible ASCII characters, none empty',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      'CLOCK_NOW must be an ISO 8601 instant with a time zone, such as 2030-12-05T00:00:00Z',
    ])
    expect(found.join(' ')).not.toContain('secret')
  })

  it('refuses production without PostgreSQL, and CLOCK_NOW in production', () => {
    expect(problems({ APP_ENV: 'production', API_KEYS: 'k', CLOCK_NOW: '2030-01-01T00:00:00Z' })).toEqual([
      'APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)',
      'CLOCK_NOW is refused in production',
    ])
  })

  it('chooses PostgreSQL when DATABASE_URL is set, unless STORAGE=memory', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/animals'
    expect(config({ DATABASE_URL: url }).storage).toEqual({
      kind: 'postgres',
      url,
      poolSize: 10,
      connectionTimeoutMs: 2000,
      statementTimeoutMs: 5000,
      migrateOnStart: true,
    })
    expect(config({ DATABASE_URL: url, STORAGE: 'memory' }).storage).toEqual({ kind: 'memory' })
    expect(problems({ STORAGE: 'postgres' })).toEqual(['STORAGE=postgres needs DATABASE_URL'])
    expect(problems({ DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL must be a postgres:// or postgresql:// connection URL',
    ])
  })
})
