import type Koa from 'koa'
import type { AppConfig } from './config.js'
import { buildContainer, resolve, type ContainerOverrides } from './container.js'
import { createLogger, type Logger } from './logger.js'
import { ClosersToken, HttpAppToken } from './tokens.js'

/** The service, wired and ready to serve, not yet listening. */
export type AnimalStoreService = {
  readonly app: Koa
  readonly logger: Logger
  /** Releases what the service holds (database pools and the like); the HTTP server is the caller's. */
  readonly close: () => Promise<void>
}

export type ServiceOptions = ContainerOverrides & { readonly logger?: Logger }

/** Builds the whole service from a configuration object: no environment, no tsyringe to know about. */
export const createService = async (
  config: AppConfig,
  options: ServiceOptions = {},
): Promise<AnimalStoreService> => {
  const logger = options.logger ?? createLogger(config)
  const container = buildContainer(config, logger, options)
  const app = resolve(container, HttpAppToken)
  const closers = resolve(container, ClosersToken)
  return {
    app,
    logger,
    close: async () => {
      for (const close of closers.reverse()) await close()
      await container.dispose()
    },
  }
}
