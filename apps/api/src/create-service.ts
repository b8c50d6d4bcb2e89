import {
  createHttpApp,
  createOperationsApp,
  createTokenBucketRateLimiter,
  DEPRECATED_OPERATIONS,
  type MetricsPage,
  type ShuttingDown,
} from '@pets/adapters-http'
import { createUseCases, type ApiKeyStore } from '@pets/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type Koa from 'koa'
import { apiServers } from './api-servers.js'
import { AUTH_FAILURE_LIMIT_DEFAULT, defaultPublicBaseUrl, type AppConfig } from './config.js'
import { buildContainer, resolve, type ContainerOverrides } from './container.js'
import { startIdempotencyCleanup } from './idempotency-cleanup.js'
import { createLifecycle, type Lifecycle } from './lifecycle.js'
import { createLogger, httpLoggerOf, type Logger } from './log/logger.js'
import { createServiceMetrics, type ServiceMetrics, type ServiceMetricsOptions } from './service-metrics.js'
import { sharedCheck } from './shared-check.js'
import { openStorage } from './storage/open-storage.js'
import { AuthenticatorToken, ClockToken, StorageToken } from './tokens.js'
import { createUsageCounter, type UsageCounter } from './usage-counter.js'

/** The service, wired and ready to serve, not yet listening. */
export type AnimalStoreService = {
  readonly app: Koa
  /** With METRICS_PORT: `/metrics`, `/healthz` and `/readyz` alone, for their own listener. */
  readonly operationsApp?: Koa
  readonly logger: Logger
  /** Where keys issued with `keys create` live. */
  readonly apiKeys: ApiKeyStore
  /** Serving or draining: `drain()` turns /readyz to 503 at once. */
  readonly lifecycle: Lifecycle
  readonly metrics: ServiceMetrics
  /** The calls counted per API key, written to the store in batches. */
  readonly usage: UsageCounter
  /** Stops the background work, writes the last usage counts, closes the storage; close the server first. */
  readonly close: () => Promise<void>
}

/** What createService may be given besides the configuration: a clock, a logger, whether to migrate. */
export type ServiceOptions = ContainerOverrides & {
  readonly logger?: Logger | undefined
  /** Run the migrations before serving; the configuration's MIGRATE_ON_START unless given. */
  readonly migrate?: boolean | undefined
  /** Makes what /metrics serves from the service's own metrics (a cluster worker asks its primary). */
  readonly metricsPage?: ((local: ServiceMetrics) => () => Promise<MetricsPage>) | undefined
  /** The spans of this process so far, counted on /metrics (`tracing_spans_total`), when it traces. */
  readonly spans?: ServiceMetricsOptions['spans'] | undefined
}

const shuttingDown: ShuttingDown = { _tag: 'ShuttingDown' }

/** `/readyz` asks the store at most this often, whatever the rate of probes (sharedCheck). */
export const READY_CHECK_EVERY_MS = 1_000
/** Client addresses the limit on keys that are not valid keeps at most: strangers choose them. */
const AUTH_FAILURE_ADDRESSES = 100_000

/**
 * Builds the whole service from a configuration object (no environment, no tsyringe to know about): opens
 * (and migrates) the storage, wires the parts, starts the background work; `close` stops it in reverse.
 */
export const createService = async (
  config: AppConfig,
  options: ServiceOptions = {},
): Promise<AnimalStoreService> => {
  const logger = options.logger ?? createLogger(config)
  const opened = await openStorage(config, logger)
  const closers: Array<() => Promise<void>> = [opened.storage.close]
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer()
  }
  try {
    if (config.storage.kind === 'postgres' && (options.migrate ?? config.storage.migrateOnStart))
      await opened.migrate()
    const c = buildContainer(config, opened, options)
    const storage = resolve(c, StorageToken)
    const useCases = createUseCases({ storage, clock: resolve(c, ClockToken) })
    const metrics = createServiceMetrics({
      deprecatedOperations: DEPRECATED_OPERATIONS,
      ...(opened.pool === undefined ? {} : { pool: opened.pool }),
      ...(options.spans === undefined ? {} : { spans: options.spans }),
    })
    const lifecycle = createLifecycle()

    await storage.start()
    const usage = createUsageCounter({ log: storage.usageLog, flushEveryMs: config.usageFlushMs, logger })
    closers.push(usage.close)
    const cleanup = startIdempotencyCleanup({
      forgetExpired: useCases.forgetExpiredCreations,
      everyMs: config.idempotencyCleanupMs,
      logger,
    })
    closers.push(cleanup.close, async () => c.dispose())

    const storeReady = sharedCheck(storage.health.check, { everyMs: READY_CHECK_EVERY_MS })
    const httpLogger = httpLoggerOf(logger)
    const operations = {
      // CONTRACT: /readyz answers 503 from the moment shutdown begins, whatever the store says.
      ready: () => (lifecycle.draining() ? TE.left(shuttingDown) : storeReady()),
      metrics: options.metricsPage?.(metrics) ?? metrics.page,
      observe: (request: Parameters<ServiceMetrics['observe']>[0]) => {
        metrics.observe(request)
        if (request.apiKeyId !== null && request.operation !== null)
          usage.count(request.apiKeyId, request.operation)
      },
    }
    const app = createHttpApp({
      useCases,
      authenticator: resolve(c, AuthenticatorToken),
      ...(config.rateLimit === undefined
        ? {}
        : { rateLimiter: createTokenBucketRateLimiter(config.rateLimit) }),
      authFailureLimiter: createTokenBucketRateLimiter({
        ...(config.authFailureLimit ?? AUTH_FAILURE_LIMIT_DEFAULT),
        maxKeys: AUTH_FAILURE_ADDRESSES,
      }),
      ...(config.trustedProxies === undefined ? {} : { trustedProxies: config.trustedProxies }),
      publicBaseUrl: config.publicBaseUrl ?? defaultPublicBaseUrl(config),
      servers: apiServers(config),
      logger: httpLogger,
      // With METRICS_PORT, /metrics is not on the public listener at all: 404 there.
      operations:
        config.metricsPort === undefined
          ? operations
          : { ready: operations.ready, observe: operations.observe },
    })
    const operationsApp =
      config.metricsPort === undefined ? undefined : createOperationsApp({ operations, logger: httpLogger })
    return {
      app,
      ...(operationsApp === undefined ? {} : { operationsApp }),
      logger,
      apiKeys: storage.apiKeys,
      lifecycle,
      metrics,
      usage,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
