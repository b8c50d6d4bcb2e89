import { authenticatorByDigest, trustedKeysLookup, type Storage, type TrustedApiKey } from '@pets/domain'
import { apiKeyDigest } from '@pets/wire/api-key-secret'
import type pg from 'pg'
import {
  createPostgresDatabase,
  describeFacts,
  isUnavailableError,
  ListenUnheardError,
  type ConnectionFacts,
  type PoolerMode,
  type PostgresDatabaseOptions,
} from './runner/index.js'
import { migrateToLatest } from './migrate-to-latest.js'
import { brokenConnectionLines, listenLines } from './connection-lines.js'
import { outageLines, type StorageLog } from './storage-log.js'
import { createPostgresApiKeyStore, type PostgresApiKeyStore } from './stores/postgres-api-key-store.js'
import { createPostgresApiKeyUsageLog } from './stores/postgres-api-key-usage-log.js'
import { keyListenerName } from './stores/key-changes-heard.js'
import { LastUsedNotWrittenError } from './stores/last-used-writer.js'
import { createPostgresIdempotentPetCreations } from './stores/postgres-idempotent-pet-creations.js'
import { createPostgresPetRepository } from './stores/postgres-pet-repository.js'
import { createPostgresStoreHealth } from './stores/postgres-store-health.js'

/** Everything createPostgresStorage needs: plain values and callbacks, nothing of the host's. */
export type PostgresStorageOptions = Pick<
  PostgresDatabaseOptions,
  | 'poolSize'
  | 'maxLifetimeSeconds'
  | 'connectionTimeoutMs'
  | 'statementTimeoutMs'
  | 'lockTimeoutMs'
  | 'idleInTransactionTimeoutMs'
  | 'keepAlive'
  | 'sendSessionSettings'
> & {
  /** Inserts of pets take the ordering lock alone, beside a release before migration 0008 (PostgresAdapterOptions). */
  readonly insertsAlone?: boolean | undefined
  /** Where every request's statements go: PostgreSQL, or a pooler in front of it (PgBouncer in transaction mode). */
  readonly url: string
  /** PostgreSQL itself, for what needs a session (migrations, LISTEN for API keys); `url` unless given (or undefined, as an unset variable is). */
  readonly directUrl?: string | undefined
  /** Whether `url` goes through a transaction pooler; `detect` unless given (PoolerMode). */
  readonly pooler?: PoolerMode | undefined
  /** The names of `url` and `directUrl` in the host's configuration, for the log; `url` and `directUrl` unless given. */
  readonly names?: { readonly url?: string | undefined; readonly directUrl?: string | undefined } | undefined
  /** `application_name` of the pool; the LISTEN connection's is this with `-api-keys`. `animal-store` unless given. */
  readonly applicationName?: string | undefined
  /** How long /readyz waits for PostgreSQL; 1000 ms unless given. */
  readonly readyTimeoutMs?: number | undefined
  /** Whose clock dates the Idempotency-Key records: `database` unless given (createPostgresIdempotentPetCreations). */
  readonly idempotencyClock?: 'database' | 'request' | undefined
  /** Where the storage's lines go: outages (calls it cannot serve), broken connections, LISTEN, migrations. Silent unless given. */
  readonly log?: StorageLog | undefined
  /** Keys its authenticator trusts beside the stored ones, such as those of API_KEYS. */
  readonly trustedKeys?: ReadonlyArray<TrustedApiKey> | undefined
}

/** The storage, with what a host reads of it besides its ports. */
export type PostgresStorage = Storage & {
  /** The key store, which also says whether it checks keys in memory now (`servingFromMemory`). */
  readonly apiKeys: PostgresApiKeyStore
  /** The pool of `url`, for its counts (metrics). */
  readonly pool: pg.Pool
  /** Migrates through `directUrl` (else `url`, refused behind a pooler), on a connection of its own. */
  readonly migrate: () => Promise<ReadonlyArray<string>>
  /** What the pool found out about the path to PostgreSQL (a pooler, where the timeouts are set). */
  readonly connectionFacts: () => Promise<ConnectionFacts>
}

/**
 * The whole storage on PostgreSQL: one pool on `url` for every port; the LISTEN connection and migrations on
 * `directUrl` (else `url`). Calls answered StoreUnavailable are logged as an outage, a few lines each
 * (storage-log.ts: `outageLines`), never one a call.
 */
export const createPostgresStorage = (options: PostgresStorageOptions): PostgresStorage => {
  const log: StorageLog = options.log ?? (() => {})
  const names = { url: options.names?.url ?? 'url', directUrl: options.names?.directUrl ?? 'directUrl' }
  const sessionUrl = options.directUrl ?? options.url
  const sessionName = options.directUrl === undefined ? names.url : names.directUrl
  const applicationName = options.applicationName ?? 'animal-store'
  const {
    url,
    directUrl: _directUrl,
    pooler,
    names: _names,
    readyTimeoutMs,
    idempotencyClock = 'database',
    insertsAlone,
    log: _log,
    trustedKeys = [],
    ...pool
  } = options
  // A restart breaks every idle connection at once: one line for all of them.
  const broken = brokenConnectionLines(log)
  const database = createPostgresDatabase({
    ...pool,
    connectionString: url,
    connectionStringName: names.url,
    ...(pooler === undefined ? {} : { pooler }),
    applicationName,
    onError: broken.onBroken,
  })
  const { db } = database
  // One outage is a few lines, not one a call; each request's line carries its own call's failure.
  const { onUnavailable, onServed } = outageLines(log)
  // The adapters repeat the pool's lock timeout inside their writes by themselves.
  const adapterOptions = { onUnavailable, onServed, insertsAlone }
  const listening = listenLines(log)
  const onKeyStoreError = (error: Error) => {
    if (error instanceof ListenUnheardError)
      return log(
        'error',
        `API keys: LISTEN refused: ${sessionName} does not deliver notifications (a transaction pooler?). ` +
          `Set ${names.directUrl} to PostgreSQL itself. Until then every API key is looked up in PostgreSQL`,
        { err: error },
      )
    if (!(error instanceof LastUsedNotWrittenError)) return listening.down(error)
    // A write of last_used_at, background work: part of an outage when PostgreSQL cannot serve it, else a bug.
    if (isUnavailableError(error.cause))
      return onUnavailable({ operation: 'apiKeys.lastUsed', retried: false, error: error.cause })
    log('error', 'API keys: could not write when keys were last used', { err: error })
  }
  const apiKeys = createPostgresApiKeyStore(db, {
    listen: {
      connectionString: sessionUrl,
      connectionStringName: sessionName,
      applicationName: keyListenerName(applicationName),
    },
    onError: onKeyStoreError,
    onListening: listening.up,
    onUnavailable,
    onServed,
  })
  let started = false
  return {
    pets: createPostgresPetRepository(database, adapterOptions),
    apiKeys,
    authenticator: authenticatorByDigest(apiKeyDigest, [
      trustedKeysLookup(trustedKeys, apiKeyDigest),
      apiKeys.byDigest,
    ]),
    usageLog: createPostgresApiKeyUsageLog(db, adapterOptions),
    creations: createPostgresIdempotentPetCreations(database, { ...adapterOptions, clock: idempotencyClock }),
    health: createPostgresStoreHealth(db, {
      ...(readyTimeoutMs === undefined ? {} : { timeoutMs: readyTimeoutMs }),
      onWritableChange: (writable, reason) =>
        writable
          ? log('info', reason)
          : log('warn', `${reason}: /readyz answers 503, and every write 503, until it accepts them`),
    }),
    start: async () => {
      if (started) return
      started = true
      // The LISTEN connection starts while the pool's first connection says what it reached.
      const listening = apiKeys.start()
      const facts = await database.connectionFacts().catch(() => undefined)
      log('info', 'storage: PostgreSQL', {
        requests: names.url,
        requestsTarget: database.target,
        migrations: sessionName,
        apiKeyChanges: sessionName,
        requestsReach:
          facts === undefined ? 'not known yet: PostgreSQL did not answer' : describeFacts(facts),
      })
      if (facts?.pooler === true && options.directUrl === undefined)
        log(
          'warn',
          `${names.url} goes through a connection pooler and ${names.directUrl} is not set: ` +
            `migrations and the LISTEN for API key changes need a session; set ${names.directUrl} to PostgreSQL itself`,
        )
      await listening
    },
    // The key store writes its last uses through the pool: it closes first.
    close: async () => {
      await apiKeys.close()
      await database.close()
      broken.flush()
    },
    pool: database.pool,
    connectionFacts: database.connectionFacts,
    migrate: async () => {
      const session = createPostgresDatabase({
        ...pool,
        connectionString: sessionUrl,
        connectionStringName: sessionName,
        // directUrl is a session by definition; `url` is checked (migrateToLatest refuses a pooler).
        pooler: options.directUrl === undefined ? (pooler ?? 'detect') : 'none',
        poolSize: 1,
        // A migration may take longer than any request may.
        statementTimeoutMs: 0,
        applicationName: `${applicationName}-migrations`,
      })
      try {
        return await migrateToLatest(session, (line) => log('info', line))
      } finally {
        await session.close()
      }
    },
  }
}
