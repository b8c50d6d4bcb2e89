export {
  createPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from './create-postgres-database.js'
export { migrateToLatest, type MigrationLog } from './migrate-to-latest.js'
export { migrations } from './migrations/index.js'
export { createPostgresApiKeyStore, type PostgresApiKeyStoreOptions } from './postgres-api-key-store.js'
export { createPostgresPetRepository } from './postgres-pet-repository.js'
export type { ApiKeyRow, ApiKeysTable, Database, PetRow, PetsTable } from './schema.js'
export { toCategoryId, toPetId } from './to-pet-id.js'
export { isUnavailableError, tryStore } from './unavailable.js'
