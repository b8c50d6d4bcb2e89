// The runner floor's face: everything the stores and the package's entry use of it. A file in `stores/`
// imports the runner from here only; nothing in `runner/` imports a store (scripts/check-dependency-rule.mjs).
export { asError } from './as-error.js'
export {
  type CallsIn,
  DEFAULT_LOCK_TIMEOUT_MS,
  readAs,
  reportAs,
  type PostgresAdapterOptions,
} from './adapter-options.js'
export { isBrokenConnection, QueryReadTimeoutError } from './broken-connections.js'
export { createChangeListener, ListenUnheardError, type ListenOptions } from './change-listener.js'
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
export { describeFacts } from './pooler.js'
export { guardPool, type GuardedPool } from './guarded-pool.js'
export type { GuardOptions } from './guard-options.js'
export {
  fromKysely,
  intentLifetimeOf,
  type FromKyselyOptions,
  type PostgresHandle,
  type StatementRunner,
} from './postgres-handle.js'
export type {
  ApiKeyRow,
  ApiKeysTable,
  ApiKeyUsageTable,
  Database,
  IdempotencyRecordsTable,
  KyselyOf,
  PetRow,
  PetsTable,
} from './schema.js'
export { orWhenLate } from './or-when-late.js'
export { withOurTables } from './schema.js'
export type { RunPrepared, RunPreparedAfter, Statement } from './statement.js'
export { endStatementSpan, startStatementSpan, type SpanTarget } from './statement-spans.js'
export { classifyStoreError, isUnavailableError, sqlstateOf, type StoreErrorKind } from './store-errors.js'
export {
  storeCall,
  tryStore,
  type OnServed,
  type OnUnavailable,
  type TryStoreOptions,
  type UnavailableEvent,
} from './unavailable.js'
