export {
  createPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from './create-postgres-database.js'
export { migrateToLatest, type MigrationLog } from './migrate-to-latest.js'
export { migrations } from './migrations/index.js'
export { API_KEYS_CHANNEL } from './api-key-cache.js'
export { ListenUnheardError, type ListenOptions } from './change-listener.js'
export {
  createPostgresApiKeyStore,
  type PostgresApiKeyStore,
  type PostgresApiKeyStoreOptions,
} from './postgres-api-key-store.js'
export { createPostgresApiKeyUsageLog } from './postgres-api-key-usage-log.js'
export { createPostgresIdempotentPetCreations } from './postgres-idempotent-pet-creations.js'
export { createPostgresPetRepository } from './postgres-pet-repository.js'
export { createPostgresStoreHealth, type PostgresStoreHealthOptions } from './postgres-store-health.js'
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
export { isUnavailableError, tryStore } from './unavailable.js'
