import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseConnectionTargets, type TargetOptions } from '../src/runner/connection-targets.js'

const service: TargetOptions = { defaultTargetSessionAttrs: 'read-write' }
const parse = (uri: string, options = service) => parseConnectionTargets(uri, options)
const hosts = (uri: string) =>
  parse(uri).hosts.map((h) => `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`)
const refusalOf = (query: string): string => refusal(`postgres://h/db?${query}`)
// The message, without the label every message starts with.
const refusal = (uri: string, options = service): string => {
  try {
    parse(uri, options)
  } catch (error) {
    const message = (error as Error).message
    expect(message.startsWith(`${options.label ?? 'DATABASE_URL'}: `)).toBe(true)
    return message.slice(message.indexOf(': ') + 2)
  }
  throw new Error(`accepted ${uri}`)
}

describe('parseConnectionTargets', () => {
  it('reads hosts, ports, the rules and the rest as pg settings', () => {
    const uri =
      'postgres://app:s3cret@n1:5432,n2:5433,[::1]:5434/pets?target_session_attrs=primary' +
      '&load_balance_hosts=random&connect_timeout=2&application_name=api&options=-c%20statement_timeout%3D5s'
    const base = { user: 'app', password: 's3cret', database: 'pets', application_name: 'api' }
    expect(hosts(uri)).toEqual(['n1:5432', 'n2:5433', '[::1]:5434'])
    expect({ ...parse(uri), hosts: [] }).toEqual({
      hosts: [],
      targetSessionAttrs: 'primary',
      loadBalanceHosts: 'random',
      connectTimeoutMs: 2000,
      base: { ...base, options: '-c statement_timeout=5s' },
    })
  })

  it('takes the default target from the caller, port 5432, no load balancing and no timeout', () => {
    const one = [{ host: 'db.example', port: 5432 }]
    const defaults = { hosts: one, targetSessionAttrs: 'read-write', loadBalanceHosts: 'disable' }
    expect(parse('postgresql://db.example/pets')).toEqual({ ...defaults, base: { database: 'pets' } })
    const any = parse('postgres://db.example/pets', { defaultTargetSessionAttrs: 'any' })
    expect(any.targetSessionAttrs).toBe('any')
  })

  it('reads every target_session_attrs of libpq', () => {
    for (const attrs of ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby']) {
      expect(parse(`postgres://h/db?target_session_attrs=${attrs}`).targetSessionAttrs).toBe(attrs)
    }
  })

  it('reads the host and port lists of the query form; one port serves every host', () => {
    expect(hosts('postgres:///app?host=n1,n2&port=5432,5433')).toEqual(['n1:5432', 'n2:5433'])
    expect(hosts('postgres:///app?host=n1,n2&port=6432')).toEqual(['n1:6432', 'n2:6432'])
    expect(hosts('postgres://n1,n2/app?port=6432')).toEqual(['n1:6432', 'n2:6432'])
    expect(hosts('postgres:///app?host=%2Fvar%2Frun%2Fpostgresql')).toEqual(['/var/run/postgresql:5432'])
    expect(refusal('postgres:///app?host=a,b,c&port=1,2')).toBe('3 hosts, 2 ports')
  })

  it('reads IPv6 addresses in brackets, a zone included', () => {
    expect(parse('postgres://[fe80::1%25eth0]:6000/x').hosts).toEqual([{ host: 'fe80::1%eth0', port: 6000 }])
    expect(hosts('postgres://[::1],[2001:db8::7]:6000/x')).toEqual(['[::1]:5432', '[2001:db8::7]:6000'])
    expect(refusal('postgres://[::1:5432/x')).toBe('host 1 misses the "]" closing its IPv6 address')
    expect(refusal('postgres://h,[::1]x/x')).toBe('host 2 has text after its "]"')
  })

  it('takes localhost for an empty host, as pg does', () => {
    expect(hosts('postgres:///app')).toEqual(['localhost:5432'])
    expect(hosts('postgres://:5433,n2/app')).toEqual(['localhost:5433', 'n2:5432'])
  })

  it('percent-decodes the user, the password and the database; a "+" in a query value is a space, as pg reads it', () => {
    const { base } = parse('postgres://us%40er:p%40ss%2Fw%3Fd@h/my%20db?options=-c+x%2By')
    expect(base).toEqual({ user: 'us@er', password: 'p@ss/w?d', database: 'my db', options: '-c x+y' })
  })

  it('ends the user info at the last "@", so an unencoded "@" in a password still works', () => {
    expect(parse('postgres://u:p@ss@h:5433/db').base.password).toBe('p@ss')
    expect(hosts('postgres://u:p@ss@h:5433/db')).toEqual(['h:5433'])
  })

  it('takes user, password and dbname as query parameters too, but not twice', () => {
    const { base } = parse('postgres://h?user=u&password=p&dbname=d')
    expect(base).toEqual({ user: 'u', password: 'p', database: 'd' })
    expect(refusal('postgres://h/pets?dbname=d')).toBe('the database name is given twice (and dbname=)')
    expect(refusal('postgres://h/?host=x')).toBe('the hosts are given twice')
    expect(refusal('postgres://h:1/?port=2')).toBe('the ports are given twice')
    expect(refusalOf('port=1&port=2')).toBe('parameter "port" is given twice')
  })

  it('refuses an unknown parameter and one pg cannot honour, by name', () => {
    expect(refusalOf('foo=1')).toBe('unknown parameter "foo"')
    expect(refusalOf('toString=1')).toBe('unknown parameter "toString"')
    expect(refusalOf('passfile=x')).toBe('parameter "passfile" is not supported here')
    expect(refusalOf('hostaddr=1.2.3.4')).toBe('parameter "hostaddr" is not supported here')
    expect(refusal('postgres://h/db?foo=1', { ...service, label: 'REPLICA_URL' })).toBe(
      'unknown parameter "foo"',
    )
  })

  it('refuses a bad value, naming the parameter and the value', () => {
    expect(refusalOf('target_session_attrs=sideways')).toBe(
      'parameter target_session_attrs has a bad value "sideways" ' +
        '(any, read-write, read-only, primary, standby, prefer-standby)',
    )
    expect(refusalOf('load_balance_hosts=rr')).toBe(
      'parameter load_balance_hosts has a bad value "rr" (disable, random)',
    )
    expect(refusalOf('connect_timeout=2.5')).toMatch(/^parameter connect_timeout has a bad value "2.5"/)
    expect(refusalOf('sslmode=allow')).toMatch(/^parameter sslmode has a bad value "allow"/)
    expect(refusal('postgres://h:99999/db')).toBe('the port of host 1 is not a number from 1 to 65535')
    expect(refusal('postgres://h/db%00')).toBe('the database name holds a NUL byte')
    expect(refusal('mysql://h/db')).toBe('must start with postgres:// or postgresql://')
    expect(refusalOf('sslmode')).toBe('query item 1 has no "=" (write "?" in a password as %3F)')
  })

  it('reads connect_timeout as libpq 18: seconds, zero or less is no limit', () => {
    const timeout = (seconds: string) => parse(`postgres://h/db?connect_timeout=${seconds}`).connectTimeoutMs
    expect([timeout('1'), timeout('0'), timeout('-5')]).toEqual([1000, undefined, undefined])
    expect(timeout('2147483')).toBe(2_147_483_000)
    expect(refusalOf('connect_timeout=2147484')).toMatch(/^parameter connect_timeout has a bad value/)
  })

  it('reads the TLS parameters as pg does, certificate files included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'targets-'))
    writeFileSync(join(dir, 'root.crt'), 'ROOT')
    const ssl = (query: string) => parse(`postgres://h/db?${query}`).base.ssl
    expect(['disable', 'require', 'verify-full'].map((mode) => ssl(`sslmode=${mode}`))).toEqual([
      false,
      {},
      {},
    ])
    expect(ssl('sslmode=no-verify')).toEqual({ rejectUnauthorized: false })
    expect([ssl('ssl=true'), ssl('ssl=0')]).toEqual([true, false])
    expect(ssl(`sslmode=verify-full&sslrootcert=${join(dir, 'root.crt')}`)).toEqual({ ca: 'ROOT' })
    expect(ssl('sslrootcert=system')).toEqual({})
    const direct = parse('postgres://h/db?sslnegotiation=direct').base
    expect(direct).toEqual({ database: 'db', ssl: true, sslnegotiation: 'direct' })
    expect(refusalOf('sslnegotiation=direct&sslmode=disable')).toContain('sslnegotiation')
    expect(refusalOf(`sslcert=${join(dir, 'none.crt')}`)).toContain('ENOENT')
  })
})

describe('what the messages never show', () => {
  const secret = 'hunter2'
  it.each([
    ['an unknown parameter', `postgres://u:${secret}@h/db?foo=1`],
    ['a bad port', `postgres://u:${secret}@h:notaport/db`],
    ['a "/" in the password', 'postgres://u:hun/ter2@h/db'],
    ['a "?" in the password', 'postgres://u:hun?ter2@h/db'],
    ['a "?" and "=" in the password', 'postgres://u:hun?ter2=x@h/db'],
    ['a ":" and "/" in the password', 'postgres://u:h:un/ter2@h/db'],
    ['a bad percent-encoding in the password', `postgres://u:${secret}%zz@h/db`],
    ['a bad value', `postgres://u:${secret}@h/db?target_session_attrs=x`],
  ])('the password, for %s', (_, uri) => {
    expect(refusal(uri)).not.toContain('ter2')
  })
})

describe('the length of a host list', () => {
  it('takes 256 hosts or ports, and refuses more before it builds the list, naming the limit', () => {
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}`).join(',')
    expect(parse(`postgres://${hosts(256)}/db`).hosts).toHaveLength(256)
    expect(refusal(`postgres://${hosts(257)}/db`)).toContain('lists more than 256 hosts')
    expect(refusal(`postgres:///db?host=${hosts(257)}`)).toContain('lists more than 256 hosts')
    expect(refusal(`postgres:///db?host=a&port=${'5432,'.repeat(256)}5432`)).toContain(
      'lists more than 256 ports',
    )
  })
})

describe('linear parsing', () => {
  it('reads or refuses a megabyte of adversarial input at once', () => {
    const inputs = [
      `postgres://${'[:'.repeat(250_000)}/db`,
      `postgres://${'a,'.repeat(250_000)}a/db`,
      `postgres://${'@:'.repeat(250_000)}/db`,
      `postgres://h/db?${'a=&'.repeat(250_000)}`,
      `postgres://h/${'%'.repeat(500_000)}`,
    ]
    const started = performance.now()
    for (const uri of inputs) {
      try {
        parse(uri)
      } catch {
        // refused: what matters here is how long it took
      }
    }
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
