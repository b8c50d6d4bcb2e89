import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { parseKeyEntry } from './environment-keys.js'

/** The environments APP_ENV may name. */
export const APP_ENVS = ['development', 'staging', 'production'] as const
/** One of APP_ENVS. */
export type AppEnv = (typeof APP_ENVS)[number]
/** The levels LOG_LEVEL may name, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Where pets and stored API keys live. */
export type StorageConfig =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'postgres'
      readonly url: string
      /**
       * A connection that is not through a transaction pooler, for what needs a session: hearing
       * of changed API keys (LISTEN). DATABASE_DIRECT_URL; unset: DATABASE_URL serves for both.
       */
      readonly directUrl?: string
      readonly poolSize: number
      /** DATABASE_CONNECT_TIMEOUT_MS: how long a call waits for a connection, pooled or new. */
      readonly connectionTimeoutMs: number
      /** DATABASE_STATEMENT_TIMEOUT_MS: how long a statement may run (the client waits 250 ms more). */
      readonly statementTimeoutMs: number
      /** DATABASE_LOCK_TIMEOUT_MS: how long a statement waits for a lock; 0 for no limit. */
      readonly lockTimeoutMs: number
      /** DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: how long a session may idle in a transaction; 0 for no limit. */
      readonly idleInTransactionTimeoutMs: number
      /**
       * Whose clock dates the Idempotency-Key records: the database's, unless CLOCK_NOW moved the
       * service's clock on purpose (then the service's, so that the 24 hours can be tried).
       */
      readonly idempotencyClock: 'database' | 'service'
      readonly migrateOnStart: boolean
    }

/** The service's whole configuration, read once from the environment at start. */
export type AppConfig = {
  readonly env: AppEnv
  readonly host: string
  readonly port: number
  /** Where clients reach /v1, for Location and Link; unset: http://HOST:PORT/v1 of the bound port. */
  readonly publicBaseUrl?: string
  /**
   * The entries of API_KEYS, each `KEY` or `NAME:KEY` (environmentKeys reads them); in
   * development, when unset, one key is generated at start.
   */
  readonly apiKeys: ReadonlyArray<string>
  /** API_KEY_ID_SECRET: what the ids of unnamed keys of API_KEYS are derived under (environmentKeys). */
  readonly apiKeyIdSecret?: string
  readonly generateApiKey: boolean
  readonly logLevel: LogLevel
  readonly logFormat: 'json' | 'pretty'
  readonly clockNow?: Date
  readonly storage: StorageConfig
  /** After SIGTERM, how long requests are still served while /readyz says 503. */
  readonly shutdownDelayMs: number
  /** Then, how long in-flight requests may run on after the listener closed. */
  readonly shutdownGraceMs: number
  /** How long /readyz waits for the store before answering 503. */
  readonly readyTimeoutMs: number
  /** How often the calls counted per API key are written to the store. */
  readonly usageFlushMs: number
  /** Worker processes sharing the port; 1 runs without node:cluster. */
  readonly webConcurrency: number
  /** Requests per second and burst allowed to each API key, in each process; none when unset. */
  readonly rateLimit?: RateLimitConfig
  /**
   * Requests with a key that is not valid, per client address: AUTH_FAILURE_LIMIT_*; unset:
   * AUTH_FAILURE_LIMIT_DEFAULT.
   */
  readonly authFailureLimit?: RateLimitConfig
  /** TRUST_PROXY: how many proxies in front append to X-Forwarded-For; unset: none, the header ignored. */
  readonly trustedProxies?: number
  /** METRICS_PORT: /metrics (with /healthz and /readyz) on a listener of its own, and not on PORT. */
  readonly metricsPort?: number
  /** How often the records of Idempotency-Keys older than 24 hours are removed. */
  readonly idempotencyCleanupMs: number
}

/** A token bucket per API key: `burst` requests at once, refilled at `perSecond`. */
export type RateLimitConfig = { readonly perSecond: number; readonly burst: number }

/**
 * Per client address, 20 requests with a key that is not valid at once, then one a second: a
 * client with a wrong key learns it long before, and a stranger's guesses cost no lookup past it.
 */
export const AUTH_FAILURE_LIMIT_DEFAULT: RateLimitConfig = { perSecond: 1, burst: 20 }

/** The shortest key, and API_KEY_ID_SECRET, production accepts: 32 characters (~190 bits as base64url). */
export const MIN_SECRET_LENGTH = 32

/** What loadConfig needs to know about the process besides its environment. */
export type ConfigContext = {
  /** Whether standard output is a terminal: then development logs are readable lines by default. */
  readonly stdoutIsTty?: boolean
}

/** http://HOST:PORT/v1: where a client on this machine reaches the API. */
export const defaultPublicBaseUrl = ({ host, port }: Pick<AppConfig, 'host' | 'port'>): string =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`

type Env = Readonly<Record<string, string | undefined>>

const oneOf = <A extends string>(values: ReadonlyArray<A>) =>
  new t.Type<A, string, unknown>(
    values.join('|'),
    (u): u is A => values.includes(u as A),
    (u, c) =>
      values.includes(u as A) ? t.success(u as A) : t.failure(u, c, `must be one of ${values.join(', ')}`),
    String,
  )

const integer = (min: number, max: number) =>
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

const boolean = oneOf(['true', 'false'])

const rate = new t.Type<number, string, unknown>(
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

const httpUrl = new t.Type<string, string, unknown>(
  'URL',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    const url = typeof u === 'string' && URL.canParse(u) ? new URL(u) : undefined
    return url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.search &&
      !url.hash
      ? t.success(u as string)
      : t.failure(u, c, 'must be an absolute http or https URL without query or fragment')
  },
  String,
)

const postgresUrl = new t.Type<string, string, unknown>(
  'PostgresURL',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^postgres(ql)?:\/\//.test(u) && URL.canParse(u)
      ? t.success(u)
      : t.failure(u, c, 'must be a postgres:// or postgresql:// connection URL'),
  String,
)

const instant = new t.Type<Date, string, unknown>(
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

const apiKeyList = new t.Type<ReadonlyArray<string>, string, unknown>(
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

const secret = new t.Type<string, string, unknown>(
  'Secret',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && u.length >= MIN_SECRET_LENGTH && /^[\x21-\x7E]+$/.test(u)
      ? t.success(u)
      : t.failure(u, c, `must be at least ${MIN_SECRET_LENGTH} visible ASCII characters`),
  String,
)

// A field that is left out, rather than undefined, when there is no value.
const optionalField = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }

/**
 * Reads the configuration from environment variables. Every bad variable gets one message that
 * names it, what it must be, and never its value (it may be a secret).
 */
export const loadConfig = (
  env: Env,
  context: ConfigContext = {},
): E.Either<ReadonlyArray<string>, AppConfig> => {
  const problems: Array<string> = []
  const read = <A>(name: string, codec: t.Type<A, string, unknown>, fallback: A): A => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const decoded = codec.decode(raw)
    if (E.isRight(decoded)) return decoded.right
    problems.push(`${name} ${decoded.left[0]?.message ?? 'is invalid'}`)
    return fallback
  }
  const optional = <A>(name: string, codec: t.Type<A, string, unknown>): A | undefined =>
    read<A | undefined>(name, codec as t.Type<A | undefined, string, unknown>, undefined)

  const appEnv = read('APP_ENV', oneOf(APP_ENVS), 'development')
  const host = read('HOST', t.string as t.Type<string, string, unknown>, '127.0.0.1')
  const port = read('PORT', integer(0, 65535), 3000)
  const publicBaseUrl = optional('PUBLIC_BASE_URL', httpUrl)
  const apiKeys = optional('API_KEYS', apiKeyList)
  const apiKeyIdSecret = optional('API_KEY_ID_SECRET', secret)
  const trustedProxies = read('TRUST_PROXY', integer(0, 16), 0)
  const metricsPort = optional('METRICS_PORT', integer(0, 65535))
  const authFailuresPerSecond = optional('AUTH_FAILURE_LIMIT_PER_SECOND', rate)
  const authFailureBurst = optional('AUTH_FAILURE_LIMIT_BURST', integer(1, 1_000_000))
  const logLevel = read('LOG_LEVEL', oneOf(LOG_LEVELS), 'info')
  const logFormat = read(
    'LOG_FORMAT',
    oneOf(['json', 'pretty'] as const),
    appEnv === 'development' && context.stdoutIsTty === true ? 'pretty' : 'json',
  )
  const clockNow = optional('CLOCK_NOW', instant)
  const databaseUrl = optional('DATABASE_URL', postgresUrl)
  const storageKind = optional('STORAGE', oneOf(['memory', 'postgres'] as const))
  const storage: StorageConfig =
    storageKind === 'memory' || (storageKind === undefined && databaseUrl === undefined)
      ? { kind: 'memory' }
      : {
          kind: 'postgres',
          url: databaseUrl ?? '',
          ...optionalField('directUrl', optional('DATABASE_DIRECT_URL', postgresUrl)),
          poolSize: read('DATABASE_POOL_SIZE', integer(1, 1000), 10),
          // Sized for queries that are index lookups of well under a millisecond: a request that
          // cannot reach the database answers 503 within about 2 s (README, "Operating").
          connectionTimeoutMs: read('DATABASE_CONNECT_TIMEOUT_MS', integer(1, 600000), 1000),
          statementTimeoutMs: read('DATABASE_STATEMENT_TIMEOUT_MS', integer(1, 600000), 750),
          lockTimeoutMs: read('DATABASE_LOCK_TIMEOUT_MS', integer(0, 600000), 500),
          idleInTransactionTimeoutMs: read(
            'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
            integer(0, 600000),
            2000,
          ),
          idempotencyClock: clockNow === undefined ? 'database' : 'service',
          migrateOnStart: read('MIGRATE_ON_START', boolean, 'true') === 'true',
        }
  // CONTRACT: the delay is the time a load balancer needs to see /readyz turn 503.
  const shutdownDelayMs = read('SHUTDOWN_DELAY_MS', integer(0, 600000), appEnv === 'development' ? 0 : 5000)
  const shutdownGraceMs = read('SHUTDOWN_GRACE_MS', integer(0, 600000), 10000)
  const readyTimeoutMs = read('READY_TIMEOUT_MS', integer(1, 60000), 1000)
  const usageFlushMs = read('USAGE_FLUSH_MS', integer(100, 3600000), 5000)
  const webConcurrency = read('WEB_CONCURRENCY', integer(1, 256), 1)
  const ratePerSecond = optional('RATE_LIMIT_PER_SECOND', rate)
  const rateBurst = optional('RATE_LIMIT_BURST', integer(1, 1_000_000))
  const idempotencyCleanupMs = read('IDEMPOTENCY_CLEANUP_MS', integer(100, 86_400_000), 600_000)

  if (storage.kind === 'postgres' && storage.url === '') problems.push('STORAGE=postgres needs DATABASE_URL')
  if (rateBurst !== undefined && ratePerSecond === undefined)
    problems.push('RATE_LIMIT_BURST needs RATE_LIMIT_PER_SECOND')
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port)
    problems.push('METRICS_PORT must differ from PORT: /metrics is served there instead of on PORT')
  // Never which key: the position of each entry that is wrong.
  const unreadable = (apiKeys ?? []).flatMap((entry, i) =>
    parseKeyEntry(entry) === undefined ? [i + 1] : [],
  )
  if (unreadable.length > 0)
    problems.push(
      `API_KEYS entries must each be KEY or NAME:KEY, NAME a letter then letters, digits, _ or - ` +
        `(a key with a colon of its own needs a name in front); not so: ${unreadable.join(', ')}`,
    )
  const names = (apiKeys ?? []).flatMap((entry) => parseKeyEntry(entry)?.name ?? [])
  const twice = names.filter((name, i) => names.indexOf(name) !== i)
  if (twice.length > 0)
    problems.push(
      `API_KEYS names more than one key ${[...new Set(twice)].join(', ')}: a name is an id, one key each`,
    )
  if (webConcurrency > 1 && storage.kind === 'memory')
    problems.push(
      'WEB_CONCURRENCY above 1 needs PostgreSQL: each worker would keep pets of its own in memory',
    )
  if (appEnv === 'production') {
    if (storage.kind !== 'postgres')
      problems.push('APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)')
    // Without the database there is no stored key either; with it, main looks for one at start.
    if (storage.kind !== 'postgres' && apiKeys === undefined)
      problems.push('APP_ENV=production needs at least one API key: set API_KEYS')
    if (clockNow !== undefined) problems.push('CLOCK_NOW is refused in production')
    // Never which key: the position of each entry that is too short.
    const short = (apiKeys ?? []).flatMap((entry, i) => {
      const parsed = parseKeyEntry(entry)
      return parsed !== undefined && parsed.key.length < MIN_SECRET_LENGTH ? [i + 1] : []
    })
    if (short.length > 0)
      problems.push(
        `API_KEYS: in production every key must have at least ${MIN_SECRET_LENGTH} characters ` +
          `(${short.length === 1 ? 'entry' : 'entries'} ${short.join(', ')} ${short.length === 1 ? 'has' : 'have'} fewer)`,
      )
    const unnamed = (apiKeys ?? []).some((entry) => parseKeyEntry(entry)?.name === undefined)
    if (unnamed && apiKeyIdSecret === undefined)
      problems.push(
        'API_KEYS: in production a key without a name needs API_KEY_ID_SECRET, from which its public id is ' +
          'derived; set it, or name each key (NAME:KEY)',
      )
  }
  if (problems.length > 0) return E.left(problems)
  return E.right({
    env: appEnv,
    host,
    port,
    ...(publicBaseUrl === undefined ? {} : { publicBaseUrl: publicBaseUrl.replace(/\/+$/, '') }),
    apiKeys: apiKeys ?? [],
    generateApiKey: apiKeys === undefined && appEnv === 'development',
    logLevel,
    logFormat,
    ...(clockNow === undefined ? {} : { clockNow }),
    ...optionalField('apiKeyIdSecret', apiKeyIdSecret),
    ...(trustedProxies === 0 ? {} : { trustedProxies }),
    ...optionalField('metricsPort', metricsPort),
    ...(authFailuresPerSecond === undefined && authFailureBurst === undefined
      ? {}
      : {
          authFailureLimit: {
            perSecond: authFailuresPerSecond ?? AUTH_FAILURE_LIMIT_DEFAULT.perSecond,
            burst: authFailureBurst ?? AUTH_FAILURE_LIMIT_DEFAULT.burst,
          },
        }),
    storage,
    shutdownDelayMs,
    shutdownGraceMs,
    readyTimeoutMs,
    usageFlushMs,
    webConcurrency,
    // Without a burst of its own, a key may spend one second's worth at once.
    ...(ratePerSecond === undefined
      ? {}
      : {
          rateLimit: { perSecond: ratePerSecond, burst: rateBurst ?? Math.max(1, Math.ceil(ratePerSecond)) },
        }),
    idempotencyCleanupMs,
  })
}
