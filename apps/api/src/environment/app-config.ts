import type { TrustedProxies } from '@pets/adapters-http'

/*
 * The service's configuration, as loadConfig (config.ts) builds it from the variables of
 * variables.ts; each field names the variable it comes from, whose meaning is written there once.
 */

/** The environments APP_ENV may name. */
export const APP_ENVS = ['development', 'staging', 'production'] as const
/** One of APP_ENVS. */
export type AppEnv = (typeof APP_ENVS)[number]
/** The levels LOG_LEVEL may name, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Where pets and stored API keys live: PostgreSQL when DATABASE_URL is set, unless STORAGE=memory. */
export type StorageConfig =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'postgres'
      /** DATABASE_URL. */
      readonly url: string
      /** DATABASE_DIRECT_URL: for what needs a session (migrations, LISTEN); unset: `url` serves for all. */
      readonly directUrl?: string
      /** DATABASE_POOL_SIZE. */
      readonly poolSize: number
      /** DATABASE_CONNECT_TIMEOUT_MS. */
      readonly connectionTimeoutMs: number
      /** DATABASE_STATEMENT_TIMEOUT_MS (the client waits 250 ms more). */
      readonly statementTimeoutMs: number
      /** DATABASE_LOCK_TIMEOUT_MS; 0 for no limit. */
      readonly lockTimeoutMs: number
      /** DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS; 0 for no limit. */
      readonly idleInTransactionTimeoutMs: number
      /**
       * Whose clock dates the Idempotency-Key records: the database's, unless CLOCK_NOW moved the
       * service's clock on purpose (then the service's, so that the 24 hours can be tried).
       */
      readonly idempotencyClock: 'database' | 'service'
      /** MIGRATE_ON_START. */
      readonly migrateOnStart: boolean
    }

/** The service's whole configuration, read once from the environment at start. */
export type AppConfig = {
  /** APP_ENV. */
  readonly env: AppEnv
  /** HOST. */
  readonly host: string
  /** PORT. */
  readonly port: number
  /** PUBLIC_BASE_URL, without a trailing slash; unset: http://HOST:PORT/v1 of the bound port. */
  readonly publicBaseUrl?: string
  /** The entries of API_KEYS, each `KEY` or `NAME:KEY` (environmentKeys reads them). */
  readonly apiKeys: ReadonlyArray<string>
  /** API_KEY_ID_SECRET. */
  readonly apiKeyIdSecret?: string
  /** In development without API_KEYS: one key is generated and printed at start. */
  readonly generateApiKey: boolean
  /** LOG_LEVEL. */
  readonly logLevel: LogLevel
  /** LOG_FORMAT. */
  readonly logFormat: 'json' | 'pretty'
  /** CLOCK_NOW. */
  readonly clockNow?: Date
  readonly storage: StorageConfig
  /** SHUTDOWN_DELAY_MS. */
  readonly shutdownDelayMs: number
  /** SHUTDOWN_GRACE_MS. */
  readonly shutdownGraceMs: number
  /** READY_TIMEOUT_MS. */
  readonly readyTimeoutMs: number
  /** USAGE_FLUSH_MS. */
  readonly usageFlushMs: number
  /** WEB_CONCURRENCY: 1 runs without node:cluster. */
  readonly webConcurrency: number
  /** RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST; none when unset. */
  readonly rateLimit?: RateLimitConfig
  /** AUTH_FAILURE_LIMIT_PER_SECOND and AUTH_FAILURE_LIMIT_BURST; unset: AUTH_FAILURE_LIMIT_DEFAULT. */
  readonly authFailureLimit?: RateLimitConfig
  /** TRUST_PROXY; unset or 0: none, X-Forwarded-For ignored. */
  readonly trustedProxies?: TrustedProxies
  /** METRICS_PORT. */
  readonly metricsPort?: number
  /** IDEMPOTENCY_CLEANUP_MS. */
  readonly idempotencyCleanupMs: number
  /** HEADERS_TIMEOUT_MS. */
  readonly headersTimeoutMs: number
  /** MAX_CONNECTIONS. */
  readonly maxConnections: number
}

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export type RateLimitConfig = { readonly perSecond: number; readonly burst: number }

/** What loadConfig needs to know about the process besides its environment. */
export type ConfigContext = {
  /** Whether standard output is a terminal: then development logs are readable lines by default. */
  readonly stdoutIsTty?: boolean
}

/** http://HOST:PORT/v1: where a client on this machine reaches the API. */
export const defaultPublicBaseUrl = ({ host, port }: Pick<AppConfig, 'host' | 'port'>): string =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`
