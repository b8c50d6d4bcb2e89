import type { TrustedProxies } from '@pets/adapters-http'
import { parseKeyEntry } from '../environment-keys.js'
import { MIN_SECRET_LENGTH, type AppEnv, type StorageConfig } from './app-config.js'

/** The variables whose combination loadConfig checks, as read. */
export type Combination = {
  readonly appEnv: AppEnv
  readonly port: number
  readonly storage: StorageConfig
  readonly apiKeys: ReadonlyArray<string> | undefined
  readonly apiKeyIdSecret: string | undefined
  readonly metricsPort: number | undefined
  readonly clockNow: Date | undefined
  readonly webConcurrency: number
  readonly ratePerSecond: number | undefined
  readonly rateBurst: number | undefined
  readonly trustedProxies: TrustedProxies
}

// The positions (from 1) of the entries of API_KEYS for which `wrong` holds: never the keys.
const entriesWhere = (apiKeys: ReadonlyArray<string>, wrong: (entry: string) => boolean) =>
  apiKeys.flatMap((entry, i) => (wrong(entry) ? [i + 1] : []))

/** What is wrong with API_KEYS anywhere: unreadable entries, and a name given twice. */
const keyProblems = (apiKeys: ReadonlyArray<string>): Array<string> => {
  const problems: Array<string> = []
  const unreadable = entriesWhere(apiKeys, (entry) => parseKeyEntry(entry) === undefined)
  if (unreadable.length > 0)
    problems.push(
      `API_KEYS entries must each be KEY or NAME:KEY, NAME a letter then letters, digits, _ or - ` +
        `(a key with a colon of its own needs a name in front); not so: ${unreadable.join(', ')}`,
    )
  const names = apiKeys.flatMap((entry) => parseKeyEntry(entry)?.name ?? [])
  const twice = names.filter((name, i) => names.indexOf(name) !== i)
  if (twice.length > 0)
    problems.push(
      `API_KEYS names more than one key ${[...new Set(twice)].join(', ')}: a name is an id, one key each`,
    )
  return problems
}

/** What production refuses that development allows. */
const productionProblems = (c: Combination): Array<string> => {
  const problems: Array<string> = []
  const apiKeys = c.apiKeys ?? []
  if (c.storage.kind !== 'postgres')
    problems.push('APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)')
  // Without the database there is no stored key either; with it, main looks for one at start.
  if (c.storage.kind !== 'postgres' && c.apiKeys === undefined)
    problems.push('APP_ENV=production needs at least one API key: set API_KEYS')
  if (c.clockNow !== undefined) problems.push('CLOCK_NOW is refused in production')
  if (typeof c.trustedProxies === 'number' && c.trustedProxies > 0)
    problems.push(
      'TRUST_PROXY: a number of proxies is refused in production, since any client that reaches the service ' +
        'directly could then choose its address; name the proxies by address or CIDR, such as 10.0.0.0/8',
    )
  const short = entriesWhere(apiKeys, (entry) => {
    const parsed = parseKeyEntry(entry)
    return parsed !== undefined && parsed.key.length < MIN_SECRET_LENGTH
  })
  if (short.length > 0)
    problems.push(
      `API_KEYS: in production every key must have at least ${MIN_SECRET_LENGTH} characters ` +
        `(${short.length === 1 ? 'entry' : 'entries'} ${short.join(', ')} ${short.length === 1 ? 'has' : 'have'} fewer)`,
    )
  const unnamed = apiKeys.some((entry) => parseKeyEntry(entry)?.name === undefined)
  if (unnamed && c.apiKeyIdSecret === undefined)
    problems.push(
      'API_KEYS: in production a key without a name needs API_KEY_ID_SECRET, from which its public id is ' +
        'derived; set it, or name each key (NAME:KEY)',
    )
  return problems
}

/**
 * What is wrong with the variables together, each variable being fine on its own: one message per
 * problem, naming the variables, never a value (it may be a secret).
 */
export const combinationProblems = (c: Combination): Array<string> => {
  const problems: Array<string> = []
  if (c.storage.kind === 'postgres' && c.storage.url === '')
    problems.push('STORAGE=postgres needs DATABASE_URL')
  if (c.rateBurst !== undefined && c.ratePerSecond === undefined)
    problems.push('RATE_LIMIT_BURST needs RATE_LIMIT_PER_SECOND')
  if (c.metricsPort !== undefined && c.metricsPort !== 0 && c.metricsPort === c.port)
    problems.push('METRICS_PORT must differ from PORT: /metrics is served there instead of on PORT')
  problems.push(...keyProblems(c.apiKeys ?? []))
  if (c.webConcurrency > 1 && c.storage.kind === 'memory')
    problems.push(
      'WEB_CONCURRENCY above 1 needs PostgreSQL: each worker would keep pets of its own in memory',
    )
  if (c.appEnv === 'production') problems.push(...productionProblems(c))
  return problems
}
