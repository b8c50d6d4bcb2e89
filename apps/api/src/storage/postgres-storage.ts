import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  createPostgresStoreHealth,
  migrateToLatest,
  type OnUnavailable,
} from '@pets/adapters-postgres'
import type { StorageConfig } from '../config.js'
import type { Logger } from '../logger.js'
import type { OpenedStorage } from './open-storage.js'

/**
 * The storage on PostgreSQL: one pool for every port, and one more connection that hears of changed
 * API keys, so that stored keys are checked in memory (a revocation reaches every process at once).
 * Every call the database cannot serve now (unreachable, too slow, read-only, out of connections)
 * is answered 503 and logged once at `warn`, with its operation and SQLSTATE. Loaded by
 * openStorage only for PostgreSQL.
 */
export const openPostgresStorage = (
  config: Extract<StorageConfig, { kind: 'postgres' }>,
  readyTimeoutMs: number,
  logger: Logger,
): OpenedStorage => {
  const database = createPostgresDatabase({
    connectionString: config.url,
    poolSize: config.poolSize,
    connectionTimeoutMs: config.connectionTimeoutMs,
    statementTimeoutMs: config.statementTimeoutMs,
    lockTimeoutMs: config.lockTimeoutMs,
    idleInTransactionTimeoutMs: config.idleInTransactionTimeoutMs,
    applicationName: 'animal-store',
    onError: (error) => logger.warn({ err: error }, 'a PostgreSQL connection broke; the pool replaces it'),
  })
  const { db } = database
  const onUnavailable: OnUnavailable = ({ operation, sqlstate, retried, error }) =>
    logger.warn(
      { operation, sqlstate: sqlstate ?? null, retried, err: error },
      'PostgreSQL cannot serve this call now: answered 503 unavailable',
    )
  // The adapters repeat the pool's lock timeout inside their writes by themselves.
  const options = { onUnavailable }
  const apiKeys = createPostgresApiKeyStore(db, {
    listen: { connectionString: config.directUrl ?? config.url, applicationName: 'animal-store-api-keys' },
    onError: (error) =>
      logger.warn(
        { err: error },
        'API keys: not hearing of changes; each key is looked up in PostgreSQL meanwhile',
      ),
    onUnavailable,
  })
  return {
    storage: {
      pets: createPostgresPetRepository(db, options),
      apiKeys,
      usageLog: createPostgresApiKeyUsageLog(db, options),
      creations: createPostgresIdempotentPetCreations(db, {
        ...options,
        clock: config.idempotencyClock === 'service' ? 'request' : 'database',
      }),
      health: createPostgresStoreHealth(db, {
        timeoutMs: readyTimeoutMs,
        onWritableChange: (writable, reason) =>
          writable
            ? logger.info(reason)
            : logger.warn(`${reason}: /readyz answers 503, and every write 503, until it accepts them`),
      }),
      start: async () => {
        logger.info(
          { listenThrough: config.directUrl === undefined ? 'DATABASE_URL' : 'DATABASE_DIRECT_URL' },
          'storage: PostgreSQL; requests through DATABASE_URL, API key changes heard through the listen connection',
        )
        await apiKeys.start()
      },
      // The key store writes its last uses through the pool: it closes first.
      close: async () => {
        await apiKeys.close()
        await database.close()
      },
    },
    pool: database.pool,
    migrate: async () => {
      await migrateToLatest(db, (line) => logger.info(line))
    },
  }
}
