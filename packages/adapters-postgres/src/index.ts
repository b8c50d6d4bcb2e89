// The package has three floors: the stores (`stores/`: repositories and key stores, one file each), the runner
// beneath them (`runner/`: the pool with its guards, its pooler awareness and the statement path), and pg.
// This entry and `postgres-storage.ts` put them together.
export {
  classifyStoreError,
  createPostgresDatabase,
  DEFAULT_LOCK_TIMEOUT_MS,
  fromKysely,
  guardPool,
  isBrokenConnection,
  isUnavailableError,
  ListenUnheardError,
  QUERY_TIMEOUT_MARGIN_MS,
  QueryReadTimeoutError,
  sessionSettings,
  sqlstateOf,
  tryStore,
  type ApiKeyRow,
  type ApiKeysTable,
  type ApiKeyUsageTable,
  type ConnectionFacts,
  type Database,
  type KyselyOf,
  type FromKyselyOptions,
  type GuardedPool,
  type GuardOptions,
  type IdempotencyRecordsTable,
  type KeepAliveOptions,
  type ListenOptions,
  type OnServed,
  type OnUnavailable,
  type PetRow,
  type PetsTable,
  type PoolerMode,
  type PostgresAdapterOptions,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  type PostgresHandle,
  type StatementRunner,
  type StoreErrorKind,
  type TryStoreOptions,
  type UnavailableEvent,
} from './runner/index.js'
export {
  createPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
} from './postgres-storage.js'
export type { StorageLog } from './storage-log.js'
export {
  DatabaseEncodingError,
  migrateToLatest,
  MigrationsFromNewerReleaseError,
  MigrationsLockedOutError,
  MigrationsNeedSessionError,
  MigrationsStoppedError,
  pendingMigrations,
  requireUtf8Database,
  type MigrationLog,
} from './migrate-to-latest.js'
export { migrations } from './migrations/index.js'
export {
  API_KEYS_CHANNEL,
  API_KEYS_HEARD_CHANNEL,
  HEARD_QUESTION,
  keyListenerName,
  keyListenerPids,
  listenForKeyChangesHeard,
  type KeyChangesHeard,
} from './stores/key-changes-heard.js'
export { isKeyId } from './stores/api-key-records.js'
export {
  createPostgresApiKeyStore,
  type PostgresApiKeyStore,
  type PostgresApiKeyStoreOptions,
} from './stores/postgres-api-key-store.js'
export { createPostgresApiKeyUsageLog } from './stores/postgres-api-key-usage-log.js'
export { LastUsedNotWrittenError } from './stores/last-used-writer.js'
export { CLEANUP_LOCK, KEY_LISTENER_LOCK, MIGRATION_LOCK, PET_INSERT_LOCK } from './stores/advisory-locks.js'
export {
  createPostgresIdempotentPetCreations,
  type PostgresIdempotentPetCreationsOptions,
} from './stores/postgres-idempotent-pet-creations.js'
export { createPostgresPetRepository } from './stores/postgres-pet-repository.js'
export {
  createPostgresStoreHealth,
  DatabaseRefusesWritesError,
  type PostgresStoreHealthOptions,
} from './stores/postgres-store-health.js'
export { toCategoryId, toPetId } from './stores/to-pet-id.js'
