import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import {
  AUTH_FAILURE_LIMIT_DEFAULT,
  LOG_LEVELS,
  APP_ENVS,
  MIN_SECRET_LENGTH,
  type AppConfig,
  type ConfigContext,
} from './config/app-config.js'
import { combinationProblems } from './config/config-problems.js'
import { optionalField, readStorage } from './config/read-storage.js'
import {
  apiKeyList,
  httpUrl,
  instant,
  integer,
  oneOf,
  rate,
  secretOf,
  trustedProxies as trustedProxiesCodec,
} from './config/env-codecs.js'

export * from './config/app-config.js'

type Env = Readonly<Record<string, string | undefined>>

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
  const apiKeyIdSecret = optional('API_KEY_ID_SECRET', secretOf(MIN_SECRET_LENGTH))
  const trustedProxies = read('TRUST_PROXY', trustedProxiesCodec, 0)
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
  const storage = readStorage({ read, optional }, clockNow)
  // CONTRACT: the delay is the time a load balancer needs to see /readyz turn 503.
  const shutdownDelayMs = read('SHUTDOWN_DELAY_MS', integer(0, 600000), appEnv === 'development' ? 0 : 5000)
  const shutdownGraceMs = read('SHUTDOWN_GRACE_MS', integer(0, 600000), 10000)
  const readyTimeoutMs = read('READY_TIMEOUT_MS', integer(1, 60000), 1000)
  const usageFlushMs = read('USAGE_FLUSH_MS', integer(100, 3600000), 5000)
  const webConcurrency = read('WEB_CONCURRENCY', integer(1, 256), 1)
  const ratePerSecond = optional('RATE_LIMIT_PER_SECOND', rate)
  const rateBurst = optional('RATE_LIMIT_BURST', integer(1, 1_000_000))
  const idempotencyCleanupMs = read('IDEMPOTENCY_CLEANUP_MS', integer(100, 86_400_000), 600_000)
  const headersTimeoutMs = read('HEADERS_TIMEOUT_MS', integer(100, 600_000), 10_000)
  const maxConnections = read('MAX_CONNECTIONS', integer(1, 1_000_000), 10_000)

  problems.push(
    ...combinationProblems({
      appEnv,
      port,
      storage,
      apiKeys,
      apiKeyIdSecret,
      metricsPort,
      clockNow,
      webConcurrency,
      ratePerSecond,
      rateBurst,
      trustedProxies,
    }),
  )
  if (problems.length > 0) return E.left(problems)
  return E.right({
    env: appEnv,
    host,
    port,
    // From the first slash of a run only: `/\/+$/` would scan the run again from each of its slashes.
    ...(publicBaseUrl === undefined ? {} : { publicBaseUrl: publicBaseUrl.replace(/(?<!\/)\/+$/, '') }),
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
    headersTimeoutMs,
    maxConnections,
  })
}
