import { clientAddressFinder, type TrustedProxies } from '@pets/adapters-http'
import * as t from 'io-ts'
import { isIP } from 'node:net'

// The codecs of environment variables: each decodes one variable's text, and says what it must be when it
// cannot (never what it was: it may be a secret).

/** One of `values`, as written (or in any case, with `anyCase`). */
export const oneOf = <A extends string>(values: ReadonlyArray<A>, { anyCase = false } = {}) =>
  new t.Type<A, string, unknown>(
    values.join('|'),
    (u): u is A => values.includes(u as A),
    (u, c) => {
      // anyCase: as the OpenTelemetry specification reads its enums (a sampler, a protocol).
      const read = typeof u === 'string' && anyCase ? u.toLowerCase() : u
      return values.includes(read as A)
        ? t.success(read as A)
        : t.failure(u, c, `must be one of ${values.join(', ')}`)
    },
    String,
  )

/** Decimal digits only, from `min` to `max`. */
export const integer = (min: number, max: number) =>
  new t.Type<number, string, unknown>(
    `integer ${min}..${max}`,
    (u): u is number => typeof u === 'number',
    (u, c) => {
      const n = typeof u === 'string' && /^[0-9]+$/.test(u) ? Number(u) : Number.NaN
      return Number.isSafeInteger(n) && n >= min && n <= max
        ? t.success(n)
        : t.failure(u, c, `must be an integer from ${min} to ${max}`)
    },
    String,
  )

/** `true` or `false`. */
export const boolean = new t.Type<boolean, string, unknown>(
  'boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) =>
    u === 'true'
      ? t.success(true)
      : u === 'false'
        ? t.success(false)
        : t.failure(u, c, 'must be one of true, false'),
  String,
)

/** Requests per second: above 0, at most 1000000, at most 6 decimals. */
export const rate = new t.Type<number, string, unknown>(
  'Rate',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    const n = typeof u === 'string' && /^[0-9]{1,7}(\.[0-9]{1,6})?$/.test(u) ? Number(u) : Number.NaN
    return n > 0 && n <= 1_000_000
      ? t.success(n)
      : t.failure(
          u,
          c,
          'must be a number of requests per second above 0 and at most 1000000, such as 10 or 0.5',
        )
  },
  String,
)

/** An ISO 8601 instant with a time zone. */
export const instant = new t.Type<Date, string, unknown>(
  'Instant',
  (u): u is Date => u instanceof Date,
  (u, c) => {
    const ok =
      typeof u === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(u)
    const date = ok ? new Date(u) : undefined
    return date !== undefined && !Number.isNaN(date.getTime())
      ? t.success(date)
      : t.failure(u, c, 'must be an ISO 8601 instant with a time zone, such as 2030-12-05T00:00:00Z')
  },
  (d) => d.toISOString(),
)

/** Comma-separated entries of visible ASCII characters, none empty (each KEY or NAME:KEY). */
export const apiKeyList = new t.Type<ReadonlyArray<string>, string, unknown>(
  'ApiKeys',
  (u): u is ReadonlyArray<string> => Array.isArray(u),
  (u, c) => {
    const keys = typeof u === 'string' ? u.split(',').map((k) => k.trim()) : []
    return keys.length > 0 && keys.every((k) => /^[\x21-\x7E]+$/.test(k) && !k.includes(','))
      ? t.success(keys)
      : t.failure(u, c, 'must be a comma-separated list of keys of visible ASCII characters, none empty')
  },
  (keys) => keys.join(','),
)

/** A secret such as API_KEY_ID_SECRET: at least `minLength` visible ASCII characters. */
export const secretOf = (minLength: number) =>
  new t.Type<string, string, unknown>(
    'Secret',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && u.length >= minLength && /^[\x21-\x7E]+$/.test(u)
        ? t.success(u)
        : t.failure(u, c, `must be at least ${minLength} visible ASCII characters`),
    String,
  )

// An address, a CIDR or one of proxy-addr's names, as proxy-addr compiles it; never a bare number,
// which ipaddr.js would read as an IPv4 address (17 is 0.0.0.17).
const isProxyEntry = (entry: string): boolean => {
  if (!PROXY_NAMES.has(entry) && isIP(entry.split('/')[0]!) === 0) return false
  try {
    clientAddressFinder([entry])
    return true
  } catch {
    return false
  }
}
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * TRUST_PROXY: the proxies in front by address or CIDR (or `loopback`, `linklocal`, `uniquelocal`),
 * comma-separated, or their number, 0 to 16; each entry is compiled as the service will use it.
 */
export const trustedProxies = new t.Type<TrustedProxies, string, unknown>(
  'TrustedProxies',
  (u): u is TrustedProxies => typeof u === 'number' || Array.isArray(u),
  (u, c) => {
    const count = typeof u === 'string' && /^[0-9]+$/.test(u) ? Number(u) : undefined
    if (count !== undefined && count <= 16) return t.success(count)
    const entries =
      typeof u === 'string' && count === undefined ? u.split(',').map((entry) => entry.trim()) : []
    const unreadable = entries.flatMap((entry, i) => (isProxyEntry(entry) ? [] : [i + 1]))
    return entries.length > 0 && unreadable.length === 0
      ? t.success(entries)
      : t.failure(
          u,
          c,
          'must be the addresses or CIDRs of the proxies in front (such as 10.0.0.0/8,192.0.2.10, or loopback), ' +
            `comma-separated, or their number from 0 to 16${entries.length > 1 ? `; not so: entries ${unreadable.join(', ')}` : ''}`,
        )
  },
  (trusted) => (typeof trusted === 'number' ? String(trusted) : trusted.join(',')),
)
