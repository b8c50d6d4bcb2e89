export { DEFAULT_LOCK_TIMEOUT_MS, type PostgresAdapterOptions } from './adapter-options.js'
export {
  createPostgresDatabase,
  QUERY_TIMEOUT_MARGIN_MS,
  sessionSettings,
  type ConnectionFacts,
  type KeepAliveOptions,
  type PoolerMode,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from './create-postgres-database.js'
export {
  createPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
  type StorageLog,
} from './postgres-storage.js'
export { isBrokenConnection, QueryReadTimeoutError } from './broken-connections.js'
export {
  fromKysely,
  type FromKyselyOptions,
  type PostgresHandle,
  type StatementRunner,
} from './postgres-handle.js'
export { guardPool, type GuardedPool, type GuardOptions } from './guarded-pool.js'
export { migrateToLatest, MigrationsNeedSessionError, type MigrationLog } from './migrate-to-latest.js'
export { migrations } from './migrations/index.js'
export { API_KEYS_CHANNEL } from './api-key-cache.js'
export { ListenUnheardError, type ListenOptions } from './change-listener.js'
export {
  createPostgresApiKeyStore,
  type PostgresApiKeyStore,
  type PostgresApiKeyStoreOptions,
} from './postgres-api-key-store.js'
export { createPostgresApiKeyUsageLog } from './postgres-api-key-usage-log.js'
export { CLEANUP_LOCK, MIGRATION_LOCK, PET_INSERT_LOCK } from './advisory-locks.js'
export {
  createPostgresIdempotentPetCreations,
  type PostgresIdempotentPetCreationsOptions,
} from './postgres-idempotent-pet-creations.js'
export { createPostgresPetRepository } from './postgres-pet-repository.js'
export {
  createPostgresStoreHealth,
  DatabaseRefusesWritesError,
  type PostgresStoreHealthOptions,
} from './postgres-store-health.js'
export type {
  ApiKeyRow,
  ApiKeysTable,
  ApiKeyUsageTable,
  Database,
  IdempotencyRecordsTable,
  PetRow,
  PetsTable,
} from './schema.js'
export { toCategoryId, toPetId } from './to-pet-id.js'
export {
  classifyStoreError,
  isUnavailableError,
  sqlstateOf,
  tryStore,
  type OnUnavailable,
  type StoreErrorKind,
  type TryStoreOptions,
  type UnavailableEvent,
} from './unavailable.js'
