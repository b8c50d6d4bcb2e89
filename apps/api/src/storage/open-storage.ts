import { createMemoryStorage } from '@pets/adapters-memory'
import type { Storage } from '@pets/domain'
import type { AppConfig } from '../config.js'
import { environmentKeys } from '../environment-keys.js'
import type { Logger } from '../log/logger.js'
import type { PoolStats } from '../service-metrics.js'

/** A storage, opened for the configuration, with what the service reads of it besides its ports. */
export type OpenedStorage = {
  readonly storage: Storage
  /** The PostgreSQL pool's counts, for the metrics; none in memory. */
  readonly pool?: PoolStats
  /** Brings the schema up to date; nothing to do in memory. */
  readonly migrate: () => Promise<void>
}

/**
 * Opens the storage the configuration names, loading the PostgreSQL module (kysely, pg) only when asked, so
 * a service in memory starts without it; opening starts nothing. API_KEYS go to the storage's authenticator.
 */
export const openStorage = async (config: AppConfig, logger: Logger): Promise<OpenedStorage> => {
  // CONTRACT: API_KEYS works beside the stored keys; the storage's authenticator knows both.
  const trustedKeys = environmentKeys(config.apiKeys, config.apiKeyIdSecret)
  if (config.storage.kind === 'memory')
    return { storage: createMemoryStorage({ keyIdPrefix: 'mem-', trustedKeys }), migrate: async () => {} }
  const { openPostgresStorage } = await import('./postgres-storage.js')
  return openPostgresStorage(config.storage, config.readyTimeoutMs, logger, trustedKeys)
}
