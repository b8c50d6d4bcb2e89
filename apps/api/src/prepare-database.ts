import { createPostgresApiKeyStore, migrateToLatest } from '@pets/adapters-postgres'
import { withDatabase } from './commands/with-database.js'
import type { AppConfig } from './config.js'
import type { Logger } from './logger.js'
import { requireActiveKey } from './require-active-key.js'

/**
 * What runs once before the service listens, on a connection of its own: the migrations (unless
 * MIGRATE_ON_START=false) and, in production without API_KEYS, the search for a stored key. So a
 * service that cannot serve refuses to start before it takes the port.
 */
export const prepareDatabase = async (config: AppConfig, logger: Logger): Promise<void> => {
  const storage = config.storage
  if (storage.kind !== 'postgres') return
  await withDatabase(config, 'serve', async (database) => {
    const { db } = database
    if (storage.migrateOnStart) await migrateToLatest(database, (line) => logger.info(line))
    if (config.env === 'production' && config.apiKeys.length === 0)
      await requireActiveKey(createPostgresApiKeyStore(db))
  })
}
