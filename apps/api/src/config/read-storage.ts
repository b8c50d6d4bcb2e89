import type { StorageConfig } from './app-config.js'
import { boolean, integer, oneOf, postgresUrl, type Read } from './env-codecs.js'

// A field left out, rather than undefined, when there is no value.
export const optionalField = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }

/**
 * Where pets and stored keys live: PostgreSQL when DATABASE_URL is set (or STORAGE=postgres),
 * with its pool and timeouts; else memory.
 */
export const readStorage = ({ read, optional }: Read, clockNow: Date | undefined): StorageConfig => {
  const databaseUrl = optional('DATABASE_URL', postgresUrl)
  const storageKind = optional('STORAGE', oneOf(['memory', 'postgres'] as const))
  return storageKind === 'memory' || (storageKind === undefined && databaseUrl === undefined)
    ? { kind: 'memory' }
    : {
        kind: 'postgres',
        url: databaseUrl ?? '',
        ...optionalField('directUrl', optional('DATABASE_DIRECT_URL', postgresUrl)),
        poolSize: read('DATABASE_POOL_SIZE', integer(1, 1000), 10),
        // Sized for queries that are index lookups of well under a millisecond: a request that
        // cannot reach the database answers 503 within about 2 s (README, "Operating").
        connectionTimeoutMs: read('DATABASE_CONNECT_TIMEOUT_MS', integer(1, 600000), 1000),
        statementTimeoutMs: read('DATABASE_STATEMENT_TIMEOUT_MS', integer(1, 600000), 750),
        lockTimeoutMs: read('DATABASE_LOCK_TIMEOUT_MS', integer(0, 600000), 500),
        idleInTransactionTimeoutMs: read('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', integer(0, 600000), 2000),
        idempotencyClock: clockNow === undefined ? 'database' : 'service',
        migrateOnStart: read('MIGRATE_ON_START', boolean, 'true') === 'true',
      }
}
