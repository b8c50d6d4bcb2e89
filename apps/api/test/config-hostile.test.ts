import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

const problems = (env: Record<string, string>) => {
  const result = loadConfig(env)
  if (E.isRight(result)) throw new Error('expected the configuration to be refused')
  return result.left
}
const config = (env: Record<string, string>) => {
  const result = loadConfig(env)
  if (E.isLeft(result)) throw new Error(result.left.join('; '))
  return result.right
}

const DATABASE = { DATABASE_URL: 'postgres://db/animals' }
const LONG = 'L'.repeat(32)
const SECRET = 'S'.repeat(32)

describe('the settings against strangers', () => {
  it('reads API_KEYS entries as KEY or NAME:KEY, and refuses an entry that is neither, never quoting it', () => {
    expect(config({ API_KEYS: 'billing:k1,k2, shop:a:b' }).apiKeys).toEqual(['billing:k1', 'k2', 'shop:a:b'])
    const found = problems({ API_KEYS: 'ok,se$cret:key,billing:' })
    expect(found).toEqual([expect.stringMatching(/^API_KEYS entries must each be KEY or NAME:KEY.*: 2, 3$/)])
    expect(found.join(' ')).not.toContain('se$cret')
    expect(problems({ API_KEYS: 'a:k1,a:k2' })).toEqual([
      expect.stringMatching(/^API_KEYS names more than one key a:/),
    ])
  })

  it('refuses, in production, keys shorter than 32 characters, naming the variable and the entries, not the keys', () => {
    const found = problems({ APP_ENV: 'production', ...DATABASE, API_KEYS: `a:${LONG},b:short-key,c:k1` })
    expect(found).toEqual([
      'API_KEYS: in production every key must have at least 32 characters (entries 2, 3 have fewer)',
    ])
    expect(found.join(' ')).not.toContain('short-key')
    // Elsewhere a short key is allowed, as `API_KEYS=k1 pnpm start` shows.
    expect(config({ APP_ENV: 'staging', API_KEYS: 'k1' }).apiKeys).toEqual(['k1'])
  })

  it('refuses, in production, a key without a name unless API_KEY_ID_SECRET is set', () => {
    expect(problems({ APP_ENV: 'production', ...DATABASE, API_KEYS: `named:${LONG},${LONG}` })).toEqual([
      expect.stringMatching(/^API_KEYS: in production a key without a name needs API_KEY_ID_SECRET/),
    ])
    expect(
      config({
        APP_ENV: 'production',
        ...DATABASE,
        API_KEYS: `named:${LONG},${LONG}`,
        API_KEY_ID_SECRET: SECRET,
      }).apiKeyIdSecret,
    ).toBe(SECRET)
    expect(config({ APP_ENV: 'production', ...DATABASE, API_KEYS: `named:${LONG}` }).apiKeys).toHaveLength(1)
  })

  it('refuses an API_KEY_ID_SECRET shorter than 32 characters, never quoting it', () => {
    const found = problems({ API_KEY_ID_SECRET: 'hunter2' })
    expect(found).toEqual(['API_KEY_ID_SECRET must be at least 32 visible ASCII characters'])
  })

  it('reads METRICS_PORT, TRUST_PROXY and the limit on keys that are not valid, and leaves them out unset', () => {
    expect(config({})).not.toHaveProperty('metricsPort')
    expect(config({})).not.toHaveProperty('trustedProxies')
    expect(config({})).not.toHaveProperty('authFailureLimit')
    expect(
      config({
        METRICS_PORT: '9464',
        TRUST_PROXY: '2',
        AUTH_FAILURE_LIMIT_PER_SECOND: '0.5',
        AUTH_FAILURE_LIMIT_BURST: '5',
      }),
    ).toMatchObject({ metricsPort: 9464, trustedProxies: 2, authFailureLimit: { perSecond: 0.5, burst: 5 } })
    expect(config({ AUTH_FAILURE_LIMIT_BURST: '5' }).authFailureLimit).toEqual({ perSecond: 1, burst: 5 })
    expect(config({ TRUST_PROXY: '0' })).not.toHaveProperty('trustedProxies')
  })

  it('reads TRUST_PROXY as the addresses or CIDRs of the proxies, or outside production their number', () => {
    expect(config({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.10,loopback,2001:db8::/32' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.0.2.10',
      'loopback',
      '2001:db8::/32',
    ])
    expect(config({ TRUST_PROXY: '16' }).trustedProxies).toBe(16)
    const list = (env: Record<string, string>) => problems(env).filter((p) => p.startsWith('TRUST_PROXY'))
    expect(list({ TRUST_PROXY: '17' })).toHaveLength(1)
    expect(list({ TRUST_PROXY: '10.0.0.0/8,proxy.internal,,10.0.0.0/33' })).toEqual([
      'TRUST_PROXY must be the addresses or CIDRs of the proxies in front (such as 10.0.0.0/8,192.0.2.10, or ' +
        'loopback), comma-separated, or their number from 0 to 16; not so: entries 2, 3, 4',
    ])
  })

  it('refuses in production a number of proxies, which would believe X-Forwarded-For from anyone', () => {
    const production = { APP_ENV: 'production', DATABASE_URL: 'postgres://db/animals' }
    expect(problems({ ...production, TRUST_PROXY: '1' })).toContain(
      'TRUST_PROXY: a number of proxies is refused in production, since any client that reaches the service ' +
        'directly could then choose its address; name the proxies by address or CIDR, such as 10.0.0.0/8',
    )
    for (const allowed of ['0', '10.0.0.0/8']) {
      const read = loadConfig({ ...production, TRUST_PROXY: allowed })
      expect(E.isRight(read) ? [] : read.left).toEqual([])
    }
  })

  it('names each bad one', () => {
    expect(
      problems({ PORT: '8080', METRICS_PORT: '8080', TRUST_PROXY: 'true', AUTH_FAILURE_LIMIT_BURST: '0' }),
    ).toEqual([
      'TRUST_PROXY must be the addresses or CIDRs of the proxies in front (such as 10.0.0.0/8,192.0.2.10, or ' +
        'loopback), comma-separated, or their number from 0 to 16',
      'AUTH_FAILURE_LIMIT_BURST must be an integer from 1 to 1000000',
      'METRICS_PORT must differ from PORT: /metrics is served there instead of on PORT',
    ])
  })
})
