import { parseKeyEntry } from '../environment-keys.js'
import type { RateLimitConfig } from './app-config.js'
import { apiKeyList, integer, rate, secretOf, trustedProxies } from './codecs.js'
import { storageKind } from './storage-variables.js'
import { optional, variable } from './variable.js'

/** The shortest key, and API_KEY_ID_SECRET, production accepts: 32 characters (~190 bits as base64url). */
export const MIN_SECRET_LENGTH = 32

/**
 * Per client address, 20 requests with a key that is not valid at once, then one a second: a
 * client with a wrong key learns it long before, and a stranger's guesses cost no lookup past it.
 */
export const AUTH_FAILURE_LIMIT_DEFAULT: RateLimitConfig = { perSecond: 1, burst: 20 }

// The positions (from 1) of the entries of API_KEYS for which `wrong` holds: never the keys.
const entriesWhere = (apiKeys: ReadonlyArray<string>, wrong: (entry: string) => boolean) =>
  apiKeys.flatMap((entry, i) => (wrong(entry) ? [i + 1] : []))
const plural = (n: number, one: string, more: string) => (n === 1 ? one : more)

export const API_KEYS = optional({
  name: 'API_KEYS',
  codec: apiKeyList,
  unset: 'unset',
  requires: (apiKeys = []) => {
    const unreadable = entriesWhere(apiKeys, (entry) => parseKeyEntry(entry) === undefined)
    const names = apiKeys.flatMap((entry) => parseKeyEntry(entry)?.name ?? [])
    const twice = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))]
    // The entries whose key an earlier entry already gave: requests with it would count under one id only.
    const keys = apiKeys.map((entry) => parseKeyEntry(entry)?.key)
    const again = keys.flatMap((key, i) => (key !== undefined && keys.indexOf(key) < i ? [i + 1] : []))
    return [
      ...(unreadable.length === 0
        ? []
        : [
            `API_KEYS entries must each be KEY or NAME:KEY, NAME a letter then letters, digits, _ or - ` +
              `(a key with a colon of its own needs a name in front); not so: ${unreadable.join(', ')}`,
          ]),
      ...(twice.length === 0
        ? []
        : [`API_KEYS names more than one key ${twice.join(', ')}: a name is an id, one key each`]),
      ...(again.length === 0
        ? []
        : [
            `API_KEYS gives a key again (${plural(again.length, 'entry', 'entries')} ${again.join(', ')}): ` +
              'each key is one id, one entry',
          ]),
    ]
  },
  production: {
    rule: `at least one key, here or stored (\`keys create\`); each key at least ${MIN_SECRET_LENGTH} characters`,
    refuse: (apiKeys, get) => {
      // Without the database there is no stored key either; with it, main looks for one at start.
      const none = apiKeys === undefined && storageKind(get) !== 'postgres'
      const short = entriesWhere(apiKeys ?? [], (entry) => {
        const parsed = parseKeyEntry(entry)
        return parsed !== undefined && parsed.key.length < MIN_SECRET_LENGTH
      })
      return [
        ...(none ? ['APP_ENV=production needs at least one API key: set API_KEYS'] : []),
        ...(short.length === 0
          ? []
          : [
              `API_KEYS: in production every key must have at least ${MIN_SECRET_LENGTH} characters ` +
                `(${plural(short.length, 'entry', 'entries')} ${short.join(', ')} ${plural(short.length, 'has', 'have')} fewer)`,
            ]),
      ]
    },
  },
  meaning:
    'Comma-separated API keys, each `KEY` or `NAME:KEY` (NAME: a letter, then letters, digits, `_` or `-`; ' +
    "the key's public id is then `env-NAME`); a name or a key given twice is refused at start (by the " +
    "entries' places, never quoting a key); kept as SHA-256 digests. In development, when unset, one key " +
    'is generated and printed once on standard error (if it cannot be, a `warn` line says so, without the key)',
})

export const API_KEY_ID_SECRET = optional({
  name: 'API_KEY_ID_SECRET',
  codec: secretOf(MIN_SECRET_LENGTH),
  unset: 'unset',
  production: {
    rule: 'required when an `API_KEYS` key has no name',
    refuse: (secret, get) =>
      secret === undefined && (get(API_KEYS) ?? []).some((entry) => parseKeyEntry(entry)?.name === undefined)
        ? [
            'API_KEYS: in production a key without a name needs API_KEY_ID_SECRET, from which its public id is ' +
              'derived; set it, or name each key (NAME:KEY)',
          ]
        : [],
  },
  meaning:
    `At least ${MIN_SECRET_LENGTH} characters: the secret under which the ids of unnamed \`API_KEYS\` keys ` +
    'are derived (HMAC-SHA256); without it those ids are their place in the list (`env-1`)',
})

export const RATE_LIMIT_PER_SECOND = optional({
  name: 'RATE_LIMIT_PER_SECOND',
  codec: rate,
  unset: 'unset (no limit)',
  meaning:
    'Requests per second each API key may make, in each process (decimals allowed, such as `0.5`); ' +
    'see "Rate limits"',
})

export const RATE_LIMIT_BURST = optional({
  name: 'RATE_LIMIT_BURST',
  codec: integer(1, 1_000_000),
  unset: 'the rate, rounded up',
  requires: (burst, get) =>
    burst !== undefined && get(RATE_LIMIT_PER_SECOND) === undefined
      ? ['RATE_LIMIT_BURST needs RATE_LIMIT_PER_SECOND']
      : [],
  meaning: 'Requests an API key may make at once; needs `RATE_LIMIT_PER_SECOND`',
})

export const TRUST_PROXY = variable({
  name: 'TRUST_PROXY',
  codec: trustedProxies,
  default: { value: 0 },
  production: {
    rule: 'addresses or CIDRs, not a number',
    refuse: (trusted) =>
      typeof trusted === 'number' && trusted > 0
        ? [
            'TRUST_PROXY: a number of proxies is refused in production, since any client that reaches the service ' +
              'directly could then choose its address; name the proxies by address or CIDR, such as 10.0.0.0/8',
          ]
        : [],
  },
  meaning:
    'The proxies in front whose `X-Forwarded-For` is believed, comma-separated addresses or CIDRs ' +
    "(`10.0.0.0/8,192.0.2.10`; also `loopback`, `linklocal`, `uniquelocal`): the client's address (logs, " +
    "the limit below) is the first entry, from the right, that is no trusted proxy's; the header of any " +
    'other peer is ignored. Outside production also a number of proxies, `0` to `16`, believed from any ' +
    "peer. `0`: the connection's peer, the header ignored",
})

export const AUTH_FAILURE_LIMIT_PER_SECOND = variable({
  name: 'AUTH_FAILURE_LIMIT_PER_SECOND',
  codec: rate,
  default: { value: AUTH_FAILURE_LIMIT_DEFAULT.perSecond },
  meaning:
    'Lookups of keys that are not valid (stored keys while the `LISTEN` connection is down) each client ' +
    'address may make per second, once its burst is spent; past it a key that must be looked up gets `429` ' +
    'before the query. A key checked in memory is never limited (see "Hostile input")',
})

export const AUTH_FAILURE_LIMIT_BURST = variable({
  name: 'AUTH_FAILURE_LIMIT_BURST',
  codec: integer(1, 1_000_000),
  default: { value: AUTH_FAILURE_LIMIT_DEFAULT.burst },
  meaning: 'Such lookups a client address may make at once',
})
