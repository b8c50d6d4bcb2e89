import {
  createPostgresDatabase,
  DatabaseEncodingError,
  MigrationsFromNewerReleaseError,
  MigrationsLockedOutError,
  MigrationsNeedSessionError,
  type PostgresDatabase,
} from '@pets/adapters-postgres'
import type { AppConfig, StorageConfig } from '../config.js'
import { UsageError } from './usage.js'

/**
 * The session a command opens: DATABASE_DIRECT_URL when set (a transaction pooler would keep neither a
 * migration's session lock nor a LISTEN), else DATABASE_URL, with the name its messages give it.
 */
export const commandSession = (storage: Extract<StorageConfig, { kind: 'postgres' }>) =>
  storage.directUrl === undefined
    ? { connectionString: storage.url, connectionStringName: 'DATABASE_URL' }
    : { connectionString: storage.directUrl, connectionStringName: 'DATABASE_DIRECT_URL' }

/**
 * Runs `work` on the configured PostgreSQL, then closes the pool: through DATABASE_DIRECT_URL when set (a
 * transaction pooler would not keep a migration's session lock), else DATABASE_URL.
 */
export const withDatabase = async <A>(
  config: AppConfig,
  command: string,
  work: (database: PostgresDatabase) => Promise<A>,
): Promise<A> => {
  if (config.storage.kind !== 'postgres')
    throw new UsageError(`"${command}" works on PostgreSQL: set DATABASE_URL (and not STORAGE=memory)`)
  const database = createPostgresDatabase({
    ...commandSession(config.storage),
    // DATABASE_DIRECT_URL is a session by definition; DATABASE_URL may be a pooler (migrations refuse one).
    pooler: config.storage.directUrl === undefined ? 'detect' : 'none',
    connectionTimeoutMs: config.storage.connectionTimeoutMs,
    statementTimeoutMs: 0,
    poolSize: 1,
    applicationName: `animal-store ${command}`,
  })
  // A command's refusal names it (`animal-store: keys list: …`), as its other lines do; the service's, its start.
  const refusal = (message: string) =>
    new UsageError(command === 'serve' ? message : `${command}: ${message}`)
  try {
    return await work(database)
  } catch (error) {
    // 42P01 undefined_table: the schema was never migrated.
    if ((error as { code?: unknown }).code === '42P01')
      throw refusal(`the database has no schema yet: run "animal-store migrate" first`)
    // Refusals that no retry mends (or, locked out, none mended for 5 minutes): the operator changes the database,
    // DATABASE_DIRECT_URL or the release, or ends the transaction in the way.
    if (
      error instanceof DatabaseEncodingError ||
      error instanceof MigrationsNeedSessionError ||
      error instanceof MigrationsFromNewerReleaseError ||
      error instanceof MigrationsLockedOutError
    )
      throw refusal(error.message)
    if (error instanceof UsageError && command !== 'serve' && !error.message.startsWith(`${command}: `))
      throw refusal(error.message)
    throw error
  } finally {
    await database.close()
  }
}
