import * as E from 'fp-ts/lib/Either.js'
import * as access from './environment/access-variables.js'
import type { AppConfig, ConfigContext, StorageConfig } from './environment/app-config.js'
import * as service from './environment/service-variables.js'
import * as db from './environment/storage-variables.js'
import { tracingOf } from './environment/tracing-variables.js'
import { readVariables, type Get } from './environment/variable.js'
import { VARIABLES } from './environment/variables.js'
import { withoutTrailingSlashes } from '@pets/wire'

export * from './environment/app-config.js'
export { AUTH_FAILURE_LIMIT_DEFAULT, MIN_SECRET_LENGTH } from './environment/access-variables.js'
export { configurationTable, VARIABLES } from './environment/variables.js'

type Env = Readonly<Record<string, string | undefined>>

// A field left out, rather than undefined, when there is no value.
const optionalField = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }

const storageOf = (get: Get): StorageConfig =>
  db.storageKind(get) === 'memory'
    ? { kind: 'memory' }
    : {
        kind: 'postgres',
        url: get(db.DATABASE_URL) ?? '',
        ...optionalField('directUrl', get(db.DATABASE_DIRECT_URL)),
        poolSize: get(db.DATABASE_POOL_SIZE),
        maxLifetimeSeconds: get(db.DATABASE_MAX_LIFETIME_S),
        connectionTimeoutMs: get(db.DATABASE_CONNECT_TIMEOUT_MS),
        statementTimeoutMs: get(db.DATABASE_STATEMENT_TIMEOUT_MS),
        lockTimeoutMs: get(db.DATABASE_LOCK_TIMEOUT_MS),
        idleInTransactionTimeoutMs: get(db.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS),
        idempotencyClock: get(service.CLOCK_NOW) === undefined ? 'database' : 'service',
        migrateOnStart: get(db.MIGRATE_ON_START),
        insertsAlone: get(db.PET_INSERTS_ALONE),
      }

/**
 * Reads the configuration from the environment variables of VARIABLES (environment/variables.ts).
 * Every bad variable gets one message that names it, what it must be, and never its value (it may
 * be a secret); then one per rule that the variables break together, or that production adds.
 */
export const loadConfig = (
  env: Env,
  context: ConfigContext = {},
): E.Either<ReadonlyArray<string>, AppConfig> => {
  const { get, given, problems } = readVariables(
    VARIABLES,
    env,
    context,
    (get) => context.describeOnly !== true && get(service.APP_ENV) === 'production',
  )
  if (problems.length > 0) return E.left(problems)
  const apiKeys = get(access.API_KEYS)
  const publicBaseUrl = get(service.PUBLIC_BASE_URL)
  const ratePerSecond = get(access.RATE_LIMIT_PER_SECOND)
  const trustedProxies = get(access.TRUST_PROXY)
  const tracing = tracingOf(get)
  return E.right({
    env: get(service.APP_ENV),
    host: get(service.HOST),
    port: get(service.PORT),
    ...optionalField(
      'publicBaseUrl',
      publicBaseUrl === undefined ? undefined : withoutTrailingSlashes(publicBaseUrl),
    ),
    apiKeys: apiKeys ?? [],
    generateApiKey: apiKeys === undefined && get(service.APP_ENV) === 'development',
    ...optionalField('unheededNodeEnv', service.unheededNodeEnv(get, given)),
    logLevel: get(service.LOG_LEVEL),
    logFormat: get(service.LOG_FORMAT),
    ...optionalField('clockNow', get(service.CLOCK_NOW)),
    ...optionalField('apiKeyIdSecret', get(access.API_KEY_ID_SECRET)),
    ...(trustedProxies === 0 ? {} : { trustedProxies }),
    ...optionalField('metricsPort', get(service.METRICS_PORT)),
    ...(given(access.AUTH_FAILURE_LIMIT_PER_SECOND) || given(access.AUTH_FAILURE_LIMIT_BURST)
      ? {
          authFailureLimit: {
            perSecond: get(access.AUTH_FAILURE_LIMIT_PER_SECOND),
            burst: get(access.AUTH_FAILURE_LIMIT_BURST),
          },
        }
      : {}),
    storage: storageOf(get),
    shutdownDelayMs: get(service.SHUTDOWN_DELAY_MS),
    shutdownGraceMs: get(service.SHUTDOWN_GRACE_MS),
    readyTimeoutMs: get(service.READY_TIMEOUT_MS),
    usageFlushMs: get(service.USAGE_FLUSH_MS),
    webConcurrency: get(service.WEB_CONCURRENCY),
    // Without a burst of its own, a key may spend one second's worth at once.
    ...(ratePerSecond === undefined
      ? {}
      : {
          rateLimit: {
            perSecond: ratePerSecond,
            burst: get(access.RATE_LIMIT_BURST) ?? Math.max(1, Math.ceil(ratePerSecond)),
          },
        }),
    idempotencyCleanupMs: get(service.IDEMPOTENCY_CLEANUP_MS),
    headersTimeoutMs: get(service.HEADERS_TIMEOUT_MS),
    keepAliveTimeoutMs: get(service.KEEP_ALIVE_TIMEOUT_MS),
    maxConnections: get(service.MAX_CONNECTIONS),
    ...optionalField('tracing', tracing),
  })
}
