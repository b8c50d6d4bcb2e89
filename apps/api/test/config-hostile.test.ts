import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { existsOnCalendar, isHostName } from '../src/environment/host-and-clock-codecs.js'

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
    // The same key under two names, or twice without one: refused by the entries' places, never quoted.
    const again = problems({ API_KEYS: 'a:se$cret,b:other,c:se$cret,se$cret' })
    expect(again).toEqual(['API_KEYS gives a key again (entries 3, 4): each key is one id, one entry'])
    expect(again.join(' ')).not.toContain('se$cret')
    expect(problems({ API_KEYS: 'k1,k1' })).toEqual([
      'API_KEYS gives a key again (entry 2): each key is one id, one entry',
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
    expect(problems({ APP_ENV: 'production', ...DATABASE, API_KEYS: `named:${LONG}-named,${LONG}` })).toEqual(
      [expect.stringMatching(/^API_KEYS: in production a key without a name needs API_KEY_ID_SECRET/)],
    )
    expect(
      config({
        APP_ENV: 'production',
        ...DATABASE,
        API_KEYS: `named:${LONG}-named,${LONG}`,
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

const HOST_PROBLEM = 'HOST must be an IPv4 or IPv6 address or a host name, such as 0.0.0.0, :: or localhost'
const CALENDAR_PROBLEM =
  'CLOCK_NOW must be a date and time that exist on the calendar, such as 2030-12-05T00:00:00Z'

describe('HOST', () => {
  it('takes an IPv4 or IPv6 address, or a host name by RFC 1123', () => {
    const label63 = 'a'.repeat(63)
    for (const host of [
      '0.0.0.0',
      '127.0.0.1',
      '::',
      '::1',
      '2001:db8::10',
      'localhost',
      'api-1.internal',
      'API.Example.COM',
      '3com.example',
      '0x10.example',
      '0xg',
      'x',
      `${label63}.${label63}.${label63}.${'b'.repeat(61)}`, // 253 characters
    ])
      expect(config({ HOST: host }).host).toBe(host)
  })

  it('refuses anything else, naming HOST once and never quoting the value', () => {
    for (const host of [
      '999.1.1.1',
      '1.2.3',
      '10',
      // Numbers to inet_aton, which getaddrinfo reads as IPv4 (0.0.0.16, 127.0.0.1): not names.
      '0x10',
      '0x7f.1',
      '0X7F.0.0.0x1',
      '256.0.0.1',
      'not a host',
      'under_score.example',
      '-leading.example',
      'trailing-.example',
      'double..dot',
      'example.com.',
      '.example.com',
      '[::1]',
      '127.0.0.1:3000',
      'a'.repeat(64),
      `${'a'.repeat(63)}.${'a'.repeat(63)}.${'a'.repeat(63)}.${'a'.repeat(62)}`, // 254 characters
      'hôte.example',
    ]) {
      const found = problems({ HOST: host })
      expect(found, host).toEqual([HOST_PROBLEM])
    }
  })

  it('reads a long hostile value in linear time', () => {
    const hostile = ['a-'.repeat(100_000), '1.'.repeat(100_000), `${'a'.repeat(100_000)}!`]
    const started = performance.now()
    for (const text of hostile) expect(isHostName(text)).toBe(false)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('CLOCK_NOW', () => {
  it('takes an instant whose date and time exist, with seconds, a fraction or an offset', () => {
    expect(config({ CLOCK_NOW: '2028-02-29T23:59:59Z' }).clockNow).toEqual(new Date('2028-02-29T23:59:59Z'))
    expect(config({ CLOCK_NOW: '2030-12-05T00:00Z' }).clockNow).toEqual(new Date('2030-12-05T00:00:00Z'))
    expect(config({ CLOCK_NOW: '2030-01-31T10:00:00.250+02:00' }).clockNow).toEqual(
      new Date('2030-01-31T08:00:00.250Z'),
    )
    expect(config({ CLOCK_NOW: '2030-01-01T00:30:00-05:30' }).clockNow).toEqual(
      new Date('2030-01-01T06:00:00Z'),
    )
  })

  it('refuses a date that does not exist, which new Date would roll over to another', () => {
    for (const instant of [
      '2030-02-30T00:00:00Z',
      '2030-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2030-04-31T12:00+01:00',
      '2030-01-01T24:00:00Z',
    ])
      expect(problems({ CLOCK_NOW: instant }), instant).toEqual([CALENDAR_PROBLEM])
    // What new Date cannot read at all keeps its message.
    expect(problems({ CLOCK_NOW: '2030-13-45T00:00:00Z' })).toEqual([
      'CLOCK_NOW must be an ISO 8601 instant with a time zone, such as 2030-12-05T00:00:00Z',
    ])
  })

  it('compares the fields as written, up to the seconds', () => {
    expect(existsOnCalendar('2030-02-28T23:59:59.999Z')).toBe(true)
    expect(existsOnCalendar('2030-02-28T23:59+14:00')).toBe(true)
    expect(existsOnCalendar('2030-02-30T00:00Z')).toBe(false)
  })
})
