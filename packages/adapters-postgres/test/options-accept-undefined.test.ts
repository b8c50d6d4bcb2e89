import type { ApiKeyName } from '@pets/domain'
import { aCreation, aPetData, run, type EveryOptionUndefined } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { describe, expect, inject, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  createPostgresStorage,
  createPostgresStoreHealth,
  fromKysely,
  guardPool,
  migrateToLatest,
  sessionSettings,
  tryStore,
  type Database,
  type FromKyselyOptions,
  type GuardOptions,
  type KeepAliveOptions,
  type ListenOptions,
  type PostgresAdapterOptions,
  type PostgresApiKeyStoreOptions,
  type PostgresDatabaseOptions,
  type PostgresIdempotentPetCreationsOptions,
  type PostgresStorageOptions,
  type PostgresStoreHealthOptions,
  type TryStoreOptions,
} from '../src/index.js'
import { parseConnectionTargets, type TargetOptions } from '../src/runner/connection-targets.js'
import {
  openFreshDatabase,
  type provideTestDatabase,
  startPostgresProxy,
  startTestPgBouncer,
  type FreshDatabaseOptions,
  type PgBouncerOptions,
  type Relay,
} from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const keepAlive: EveryOptionUndefined<KeepAliveOptions> = {
  idleMs: undefined,
  intervalMs: undefined,
  count: undefined,
}
const poolOptions: EveryOptionUndefined<PostgresDatabaseOptions> = {
  connectionStringName: undefined,
  poolSize: undefined,
  connectionTimeoutMs: undefined,
  statementTimeoutMs: undefined,
  lockTimeoutMs: undefined,
  idleInTransactionTimeoutMs: undefined,
  keepAlive: undefined,
  sendSessionSettings: undefined,
  pooler: undefined,
  maxLifetimeSeconds: undefined,
  applicationName: undefined,
  onError: undefined,
}
const adapterOptions: EveryOptionUndefined<PostgresAdapterOptions> = {
  onUnavailable: undefined,
  onServed: undefined,
  lockTimeoutMs: undefined,
  insertsAlone: undefined,
}

const settingsOf = async (db: Kysely<Database>) =>
  (
    await sql<{ statement: string; lock: string; idle: string }>`SELECT
      current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock,
      current_setting('idle_in_transaction_session_timeout') AS idle`.execute(db)
  ).rows[0]

describe('an option given as undefined is its default, as one left out is', () => {
  const { open, track } = useFreshDatabases()

  it('createPostgresDatabase and sessionSettings: 10 connections, 750 ms statements, 500 ms locks', async () => {
    const fresh = await open()
    const database = createPostgresDatabase({ ...poolOptions, connectionString: fresh.url })
    track(database)
    expect(database.pool.options).toMatchObject({
      max: 10,
      connectionTimeoutMillis: 1000,
      maxLifetimeSeconds: 300,
    })
    expect(database.lockTimeoutMs).toBe(500)
    expect(database.runner.statementTimeoutMs).toBe(750)
    expect(await settingsOf(database.db)).toEqual({ statement: '750ms', lock: '500ms', idle: '2s' })
    expect(sessionSettings({ ...poolOptions, keepAlive })).toEqual(sessionSettings({}))
  })

  it('fromKysely: the default lock and statement timeouts, no target', async () => {
    const fresh = await open()
    const options: EveryOptionUndefined<FromKyselyOptions> = {
      lockTimeoutMs: undefined,
      statementTimeoutMs: undefined,
      target: undefined,
    }
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: fresh.pool }) })
    const handle = fromKysely(db, options)
    expect(handle.runner.lockTimeoutMs).toBe(500)
    expect(handle.runner.statementTimeoutMs).toBe(750)
    fromKysely(db, { target: { database: undefined, host: undefined, port: undefined } })
    expect(await run(createPostgresPetRepository(handle).add(aPetData()))).toMatchObject({ id: 1 })
  })

  it('guardPool and tryStore: no query timeout, queries sent as they are, reported as unknown', async () => {
    const fresh = await open()
    const options: EveryOptionUndefined<GuardOptions> = {
      queryTimeoutMs: undefined,
      now: undefined,
      firstUse: undefined,
      send: undefined,
      submit: undefined,
      retryConnect: undefined,
    }
    const pool = new pg.Pool({ connectionString: fresh.url, max: 1 })
    track({ close: () => pool.end() })
    const guarded = guardPool(pool, options)
    const client = await guarded.connect()
    const reported: TryStoreOptions & EveryOptionUndefined<TryStoreOptions> = {
      operation: undefined,
      readOnly: undefined,
      once: undefined,
      onUnavailable: undefined,
      onServed: undefined,
    }
    const answer = await tryStore(() => client.query('SELECT 1 AS one', []), reported)()
    client.release()
    expect(answer).toEqual(E.right(expect.objectContaining({ rows: [{ one: 1 }] })))
  })

  it('the stores and migrateToLatest', async () => {
    const fresh = await open()
    const creationOptions: EveryOptionUndefined<PostgresIdempotentPetCreationsOptions> = {
      ...adapterOptions,
      clock: undefined,
      cleanupBatchSize: undefined,
    }
    expect(await run(createPostgresPetRepository(fresh, adapterOptions).add(aPetData()))).toMatchObject({
      id: 1,
    })
    expect(await run(createPostgresApiKeyUsageLog(fresh.db, adapterOptions).list())).toEqual([])
    const creations = createPostgresIdempotentPetCreations(fresh, creationOptions)
    expect(E.isRight(await creations.addOnce(aCreation())())).toBe(true)
    const healthOptions: EveryOptionUndefined<PostgresStoreHealthOptions> = {
      timeoutMs: undefined,
      onWritableChange: undefined,
    }
    expect(await createPostgresStoreHealth(fresh.db, healthOptions).check()()).toEqual(E.right(undefined))
    expect(await migrateToLatest(fresh, undefined, { signal: undefined, lockWaitMs: undefined })).toEqual([])
  })

  it('createPostgresApiKeyStore, and its LISTEN connection with every option of its own undefined', async () => {
    const fresh = await open()
    const listen: ListenOptions & EveryOptionUndefined<ListenOptions> = {
      connectionString: fresh.url,
      connectionStringName: undefined,
      applicationName: undefined,
      timeoutMs: undefined,
      reconnectMinMs: undefined,
      reconnectMaxMs: undefined,
      heartbeatMs: undefined,
    }
    const options: EveryOptionUndefined<PostgresApiKeyStoreOptions> = {
      now: undefined,
      listen: undefined,
      onError: undefined,
      onListening: undefined,
      lastUsedFlushMs: undefined,
      onUnavailable: undefined,
      onServed: undefined,
    }
    const store = createPostgresApiKeyStore(fresh.db, options)
    const issued = await run(store.issue('billing' as ApiKeyName))
    expect(await run(store.authenticate(issued.key))).toMatchObject({ value: { keyId: issued.record.id } })
    const listening = createPostgresApiKeyStore(fresh.db, { ...options, listen })
    track(listening)
    await listening.start()
    expect(listening.servingFromMemory()).toBe(true)
    // Its connection under the default name.
    const listeners = await sql<{ count: string }>`SELECT count(*) AS count FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'api-keys-listener'`.execute(fresh.db)
    expect(listeners.rows).toEqual([{ count: '1' }])
  })

  it('createPostgresStorage: a pool of 10, directUrl the url, silent, no trusted keys', async () => {
    const fresh = await open()
    const options: EveryOptionUndefined<PostgresStorageOptions> = {
      ...poolOptions,
      directUrl: undefined,
      names: undefined,
      readyTimeoutMs: undefined,
      idempotencyClock: undefined,
      insertsAlone: undefined,
      log: undefined,
      trustedKeys: undefined,
    }
    const storage = createPostgresStorage({ ...options, url: fresh.url })
    track(storage)
    createPostgresStorage({ url: fresh.url, names: { url: undefined, directUrl: undefined } })
    await storage.start()
    expect(storage.pool.options.max).toBe(10)
    expect(await storage.migrate()).toEqual([])
    expect(await run(storage.pets.add(aPetData()))).toMatchObject({ id: 1 })
    expect(await storage.health.check()()).toEqual(E.right(undefined))
  })

  it('parseConnectionTargets: a refusal names DATABASE_URL', () => {
    const options: TargetOptions & EveryOptionUndefined<TargetOptions> = {
      defaultTargetSessionAttrs: 'any',
      label: undefined,
    }
    expect(() => parseConnectionTargets('mysql://db', options)).toThrow(/^DATABASE_URL: /)
  })
})

describe('the testing entry: an option given as undefined is its default, as one left out is', () => {
  const postgres = inject('postgres')

  it('openFreshDatabase: timeouts given as undefined are 10 s, as ones left out are', async () => {
    const options: EveryOptionUndefined<FreshDatabaseOptions> = {
      ...poolOptions,
      empty: undefined,
      encoding: undefined,
      through: undefined,
    }
    const fresh = await openFreshDatabase(postgres, options)
    try {
      // Migrated (not empty), reached directly, with the helper's timeouts and not the service's.
      expect(await migrateToLatest(fresh)).toEqual([])
      expect(fresh.poolUrl).toBe(fresh.url)
      expect(await settingsOf(fresh.db)).toEqual({ statement: '10s', lock: '10s', idle: '2s' })
    } finally {
      await fresh.close()
    }
  })

  it('startPostgresProxy and startTestPgBouncer; provideTestDatabase by type', async () => {
    const relay: EveryOptionUndefined<Relay> = {
      toServer: undefined,
      toClient: undefined,
      serverClosed: undefined,
    }
    const proxy = await startPostgresProxy(postgres.url, () => relay)
    const bouncerOptions: EveryOptionUndefined<PgBouncerOptions> = {
      poolSize: undefined,
      serverHost: undefined,
      serverPort: undefined,
      ownProcess: undefined,
    }
    const bouncer = await startTestPgBouncer(postgres.url, bouncerOptions)
    try {
      for (const url of [proxy.url, bouncer.through(postgres.url)]) {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
        await client.end()
      }
    } finally {
      await bouncer.stop()
      await proxy.close()
    }
    // The globalSetup's helper: called here it would start a second server where Docker answers.
    type ProvideOptions = NonNullable<Parameters<typeof provideTestDatabase>[0]>
    const provideOptions: ProvideOptions = { log: undefined } satisfies EveryOptionUndefined<ProvideOptions>
    expect(provideOptions.log).toBeUndefined()
  })
})
