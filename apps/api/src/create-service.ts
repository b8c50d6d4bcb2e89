import { migrateToLatest } from '@pets/adapters-postgres'
import type { ApiKeyStore } from '@pets/domain'
import type Koa from 'koa'
import type { AppConfig } from './config.js'
import { buildContainer, resolve, type ContainerOverrides } from './container.js'
import { createLogger, type Logger } from './logger.js'
import type { Lifecycle } from './lifecycle.js'
import type { ServiceMetrics } from './service-metrics.js'
import {
  ApiKeyStoreToken,
  ClosersToken,
  DatabaseToken,
  HttpAppToken,
  IdempotencyCleanupToken,
  LifecycleToken,
  MetricsToken,
  UsageCounterToken,
} from './tokens.js'
import type { UsageCounter } from './usage-counter.js'

/** The service, wired and ready to serve, not yet listening. */
export type AnimalStoreService = {
  readonly app: Koa
  readonly logger: Logger
  /** Where keys issued with `keys create` live. */
  readonly apiKeys: ApiKeyStore
  /** Serving or draining: `drain()` turns /readyz to 503 at once. */
  readonly lifecycle: Lifecycle
  readonly metrics: ServiceMetrics
  /** The calls counted per API key, written to the store in batches. */
  readonly usage: UsageCounter
  /**
   * Releases what the service holds: writes the last usage counts, then closes the database pool.
   * The HTTP server is the caller's, and must be closed first.
   */
  readonly close: () => Promise<void>
}

/** What createService may be given besides the configuration: a clock, a logger, whether to migrate. */
export type ServiceOptions = ContainerOverrides & {
  readonly logger?: Logger
  /** Run the migrations before serving; the configuration's MIGRATE_ON_START unless given. */
  readonly migrate?: boolean
}

/**
 * Builds the whole service from a configuration object: no environment, no tsyringe to know
 * about. On PostgreSQL it migrates the schema first, unless told not to.
 */
export const createService = async (
  config: AppConfig,
  options: ServiceOptions = {},
): Promise<AnimalStoreService> => {
  const logger = options.logger ?? createLogger(config)
  const container = buildContainer(config, logger, options)
  const closers = resolve(container, ClosersToken)
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer()
    await container.dispose()
  }
  try {
    if (config.storage.kind === 'postgres' && (options.migrate ?? config.storage.migrateOnStart))
      await migrateToLatest(resolve(container, DatabaseToken).db, (line) => logger.info(line))
    // Started once the schema is there; stopped by close, before the pool.
    resolve(container, IdempotencyCleanupToken)
    return {
      app: resolve(container, HttpAppToken),
      logger,
      apiKeys: resolve(container, ApiKeyStoreToken),
      lifecycle: resolve(container, LifecycleToken),
      metrics: resolve(container, MetricsToken),
      usage: resolve(container, UsageCounterToken),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
