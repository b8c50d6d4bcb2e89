import type { TrustedProxies } from '@pets/adapters-http'

/** The service's configuration, as loadConfig (config.ts) reads it from the environment. */

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
       * A connection that is not through a transaction pooler, for what needs a session: the
       * migrations (advisory locks of the session) and hearing of changed API keys (LISTEN).
       * DATABASE_DIRECT_URL; unset: DATABASE_URL serves for all (README, "Scaling out").
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
  /**
   * TRUST_PROXY: the proxies in front whose X-Forwarded-For is believed, by address or CIDR (by
   * number outside production only); unset: none, the header ignored.
   */
  readonly trustedProxies?: TrustedProxies
  /** METRICS_PORT: /metrics (with /healthz and /readyz) on a listener of its own, and not on PORT. */
  readonly metricsPort?: number
  /** How often the records of Idempotency-Keys older than 24 hours are removed. */
  readonly idempotencyCleanupMs: number
  /** How long a client may take to send a request's line and headers; checked every half of it. */
  readonly headersTimeoutMs: number
  /** Connections open at once, per listener of each process; past it new ones are closed at once. */
  readonly maxConnections: number
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
