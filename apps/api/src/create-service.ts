import { migrateToLatest } from '@pets/adapters-postgres'
import type { ApiKeyStore } from '@pets/domain'
import type Koa from 'koa'
import type { AppConfig } from './config.js'
import { buildContainer, resolve, type ContainerOverrides } from './container.js'
import { createLogger, type Logger } from './logger.js'
import { ApiKeyStoreToken, ClosersToken, DatabaseToken, HttpAppToken } from './tokens.js'

/** The service, wired and ready to serve, not yet listening. */
export type AnimalStoreService = {
  readonly app: Koa
  readonly logger: Logger
  /** Where keys issued with `keys create` live. */
  readonly apiKeys: ApiKeyStore
  /** Releases what the service holds (database pools and the like); the HTTP server is the caller's. */
  readonly close: () => Promise<void>
}

export type ServiceOptions = ContainerOverrides & {
  readonly logger?: Logger
  /** Run the migrations before serving; the configuration's MIGRATE_ON_START unless given. */
  readonly migrate?: boolean
}

/**
 * Builds the whole service from a configuration object: no environment, no tsyringe to know
 * about. On PostgreSQL it migrates the schema first, unless told not to.
 */
export const createService = async (config: AppConfig, options: ServiceOptions = {}): Promise<AnimalStoreService> => {
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
    return { app: resolve(container, HttpAppToken), logger, apiKeys: resolve(container, ApiKeyStoreToken), close }
  } catch (error) {
    await close()
    throw error
  }
}
