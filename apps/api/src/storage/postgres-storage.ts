import { createPostgresStorage } from '@pets/adapters-postgres'
import type { TrustedApiKey } from '@pets/domain'
import type { StorageConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import type { OpenedStorage } from './open-storage.js'

/**
 * The configuration and the logger, as createPostgresStorage takes them: requests through
 * DATABASE_URL (PostgreSQL, or PgBouncer in transaction mode), migrations and the LISTEN for
 * changed API keys through DATABASE_DIRECT_URL when set. Loaded by openStorage only for PostgreSQL.
 */
export const openPostgresStorage = (
  config: Extract<StorageConfig, { kind: 'postgres' }>,
  readyTimeoutMs: number,
  logger: Logger,
  trustedKeys: ReadonlyArray<TrustedApiKey>,
): OpenedStorage => {
  const storage = createPostgresStorage({
    url: config.url,
    ...(config.directUrl === undefined ? {} : { directUrl: config.directUrl }),
    names: { url: 'DATABASE_URL', directUrl: 'DATABASE_DIRECT_URL' },
    poolSize: config.poolSize,
    maxLifetimeSeconds: config.maxLifetimeSeconds,
    connectionTimeoutMs: config.connectionTimeoutMs,
    statementTimeoutMs: config.statementTimeoutMs,
    lockTimeoutMs: config.lockTimeoutMs,
    idleInTransactionTimeoutMs: config.idleInTransactionTimeoutMs,
    readyTimeoutMs,
    idempotencyClock: config.idempotencyClock === 'service' ? 'request' : 'database',
    insertsAlone: config.insertsAlone,
    log: (level, message, fields) => logger[level](fields ?? {}, message),
    trustedKeys,
  })
  return {
    storage,
    pool: storage.pool,
    migrate: async () => {
      await storage.migrate()
    },
  }
}
