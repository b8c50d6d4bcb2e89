import type { TrustedProxies } from '@pets/adapters-http'

// The service's configuration, as loadConfig (config.ts) builds it from the variables of variables.ts, which
// explain each once. A field is its variable's name in camelCase (in `storage`, without DATABASE_) unless
// its comment names another.

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
      readonly url: string
      /** DATABASE_DIRECT_URL: for what needs a session (migrations, LISTEN); unset: `url` serves for all. */
      readonly directUrl?: string | undefined
      readonly poolSize: number
      /** DATABASE_MAX_LIFETIME_S. */
      readonly maxLifetimeSeconds: number
      /** DATABASE_CONNECT_TIMEOUT_MS. */
      readonly connectionTimeoutMs: number
      /** DATABASE_STATEMENT_TIMEOUT_MS (the client waits 250 ms more). */
      readonly statementTimeoutMs: number
      readonly lockTimeoutMs: number
      readonly idleInTransactionTimeoutMs: number
      /** The database's clock, unless CLOCK_NOW moved the service's on purpose (to try the 24 hours). */
      readonly idempotencyClock: 'database' | 'service'
      readonly migrateOnStart: boolean
      /** PET_INSERTS_ALONE: inserts take the ordering lock alone, beside a release before migration 0008. */
      readonly insertsAlone: boolean
    }

/** The service's whole configuration, read once from the environment at start. */
export type AppConfig = {
  /** APP_ENV. */
  readonly env: AppEnv
  readonly host: string
  readonly port: number
  /** PUBLIC_BASE_URL, without a trailing slash; unset: http://HOST:PORT/v1 of the bound port. */
  readonly publicBaseUrl?: string | undefined
  /** The entries of API_KEYS, each `KEY` or `NAME:KEY` (environmentKeys reads them). */
  readonly apiKeys: ReadonlyArray<string>
  readonly apiKeyIdSecret?: string | undefined
  /** In development without API_KEYS: one key is generated and printed at start. */
  readonly generateApiKey: boolean
  /** NODE_ENV, when it names a deployment that APP_ENV (unset) does not: the start warns that it is not heeded. */
  readonly unheededNodeEnv?: AppEnv | undefined
  readonly logLevel: LogLevel
  readonly logFormat: 'json' | 'pretty'
  readonly clockNow?: Date | undefined
  readonly storage: StorageConfig
  readonly shutdownDelayMs: number
  readonly shutdownGraceMs: number
  readonly readyTimeoutMs: number
  readonly usageFlushMs: number
  /** WEB_CONCURRENCY: 1 runs without node:cluster. */
  readonly webConcurrency: number
  /** RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST; none when unset. */
  readonly rateLimit?: RateLimitConfig | undefined
  /** AUTH_FAILURE_LIMIT_PER_SECOND and AUTH_FAILURE_LIMIT_BURST; unset: AUTH_FAILURE_LIMIT_DEFAULT. */
  readonly authFailureLimit?: RateLimitConfig | undefined
  /** TRUST_PROXY; unset or 0: none, X-Forwarded-For ignored. */
  readonly trustedProxies?: TrustedProxies | undefined
  readonly metricsPort?: number | undefined
  readonly idempotencyCleanupMs: number
  readonly headersTimeoutMs: number
  /** KEEP_ALIVE_TIMEOUT_MS: how long a kept-alive connection may idle between requests. */
  readonly keepAliveTimeoutMs: number
  readonly maxConnections: number
  /** From OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables; unset: no tracing, no SDK loaded. */
  readonly tracing?: TracingConfig | undefined
}

/** The samplers OTEL_TRACES_SAMPLER may name: those of the specification that need no remote service. */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const

/** Where and how spans are exported, from the OTEL_* variables (environment/tracing-variables.ts). */
export type TracingConfig = {
  /** The OTLP/HTTP URL spans are posted to, `/v1/traces` included. */
  readonly url: string
  /** OTEL_EXPORTER_OTLP_PROTOCOL. */
  readonly protocol: 'http/protobuf' | 'http/json'
  readonly serviceName: string
  readonly resourceAttributes: Readonly<Record<string, string>>
  /** OTEL_TRACES_SAMPLER. */
  readonly sampler: (typeof TRACES_SAMPLERS)[number]
  readonly samplerArg?: number | undefined
}

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export type RateLimitConfig = { readonly perSecond: number; readonly burst: number }

/** What loadConfig needs to know about the process besides its environment. */
export type ConfigContext = {
  /** Whether standard output is a terminal: then development logs are readable lines by default. */
  readonly stdoutIsTty?: boolean | undefined
  /**
   * For a command that only describes the service (`openapi`): production's requirements of a running
   * service (a database, keys) are not asked; what it describes is.
   */
  readonly describeOnly?: boolean | undefined
}

/** http://HOST:PORT/v1: where a client on this machine reaches the API. */
export const defaultPublicBaseUrl = ({ host, port }: Pick<AppConfig, 'host' | 'port'>): string =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`

/**
 * Whether the service's URLs (Location, Link, the OpenAPI `servers`) would name its own host and port where
 * clients elsewhere cannot reach them: PUBLIC_BASE_URL unset outside development.
 */
export const namesOwnHost = (config: Pick<AppConfig, 'env' | 'publicBaseUrl'>): boolean =>
  config.env !== 'development' && config.publicBaseUrl === undefined
