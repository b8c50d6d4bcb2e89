import * as t from 'io-ts'

// The codecs of the OpenTelemetry variables (tracing-variables.ts), as the specification reads their values.

// `true` or `false` in any case, as the specification reads booleans.
export const flag = new t.Type<boolean, string, unknown>(
  'Flag',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => {
    const text = typeof u === 'string' ? u.toLowerCase() : ''
    return text === 'true' || text === 'false'
      ? t.success(text === 'true')
      : t.failure(u, c, 'must be true or false')
  },
  String,
)

// A probability: from 0 to 1.
export const ratio = new t.Type<number, string, unknown>(
  'Ratio',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    const n = typeof u === 'string' && /^[0-9]{1,3}(\.[0-9]{1,17})?$/.test(u) ? Number(u) : Number.NaN
    return n >= 0 && n <= 1 ? t.success(n) : t.failure(u, c, 'must be a number from 0 to 1, such as 0.1')
  },
  String,
)

const decodedValue = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.trim())
  } catch {
    return undefined
  }
}

// `key=value,…`, each value percent-encoded as W3C Baggage writes it.
export const resourceAttributes = new t.Type<Readonly<Record<string, string>>, string, unknown>(
  'ResourceAttributes',
  (u): u is Readonly<Record<string, string>> => typeof u === 'object' && u !== null,
  (u, c) => {
    const pairs = typeof u === 'string' ? u.split(',') : ['']
    const entries = pairs.map((pair) => {
      const equals = pair.indexOf('=')
      const key = pair.slice(0, Math.max(equals, 0)).trim()
      const value = equals === -1 ? undefined : decodedValue(pair.slice(equals + 1))
      return /^[\x21-\x7E]{1,255}$/.test(key) && value !== undefined ? [key, value] : undefined
    })
    return entries.every((entry) => entry !== undefined)
      ? t.success(Object.fromEntries(entries))
      : t.failure(u, c, 'must be comma-separated key=value pairs, each value percent-encoded')
  },
  (attributes) =>
    Object.entries(attributes)
      .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
      .join(','),
)

// Text with something besides white space.
export const named = new t.Type<string, string, unknown>(
  'Named',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.trim() !== '' ? t.success(u) : t.failure(u, c, 'must not be blank')),
  String,
)
