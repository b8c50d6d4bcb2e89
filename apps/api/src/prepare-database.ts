import {
  createPostgresApiKeyStore,
  type PostgresDatabase,
  isUnavailableError,
  migrateToLatest,
  pendingMigrations,
  requireUtf8Database,
} from '@pets/adapters-postgres'
import { UsageError } from './commands/usage.js'
import { withDatabase } from './commands/with-database.js'
import type { AppConfig } from './config.js'
import type { Logger } from './logger.js'
import { requireActiveKey } from './require-active-key.js'

// MIGRATE_ON_START=false: a schema behind the code would answer 500s while /readyz said 200, so the service
// refuses to start then. A database it cannot reach now is no reason not to start (it answers 503 and
// recovers when the database is back, as it would at any other time): the check is left to a later start.
// A database that does not keep UTF-8 is refused as the migrations refuse it (requireUtf8Database).
const requireMigrated = async (database: PostgresDatabase, logger: Logger): Promise<void> => {
  let pending: ReadonlyArray<string>
  try {
    await requireUtf8Database(database.db)
    pending = await pendingMigrations(database.db)
  } catch (error) {
    if (!isUnavailableError(error)) throw error
    logger.warn({ err: error }, 'migrations: the database did not answer, so its schema was not checked')
    return
  }
  if (pending.length > 0)
    throw new UsageError(
      `the database's schema is not up to date (MIGRATE_ON_START=false; not run: ${pending.join(', ')}): ` +
        'run "animal-store migrate" first, or start with MIGRATE_ON_START=true',
    )
}

/**
 * What runs once before the service listens, on a connection of its own: the migrations (unless
 * MIGRATE_ON_START=false, and then a check that none is pending) and, in production without API_KEYS, the
 * search for a stored key. So a service that cannot serve refuses to start before it takes the port.
 */
export const prepareDatabase = async (config: AppConfig, logger: Logger): Promise<void> => {
  const storage = config.storage
  if (storage.kind !== 'postgres') return
  await withDatabase(config, 'serve', async (database) => {
    const { db } = database
    if (storage.migrateOnStart) await migrateToLatest(database, (line) => logger.info(line))
    else await requireMigrated(database, logger)
    if (config.env === 'production' && config.apiKeys.length === 0)
      await requireActiveKey(createPostgresApiKeyStore(db))
  })
}
