import type { ApiKeyName } from '@pets/domain'
import {
  aPetData,
  describeApiKeyStoreContract,
  describeApiKeyUsageLogContract,
  describeIdempotentPetCreationsContract,
  describePetRepositoryContract,
  run,
} from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  createPostgresStorage,
  keyListenerPids,
  ListenUnheardError,
  migrateToLatest,
  MigrationsNeedSessionError,
  type StorageLog,
} from '../src/index.js'
import { openFreshDatabase, startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// Everything the pool sends goes through a real PgBouncer in transaction mode (Debian's, started
// here; or TEST_PGBOUNCER_URL). Without one the file fails, saying how to provide one.
const postgres = inject('postgres')
let started: Promise<TestPgBouncer> | undefined
const bouncer = () => (started ??= startTestPgBouncer(postgres.url))
afterAll(async () => {
  await (await started)?.stop()
})
const through = async (options: Parameters<typeof openFreshDatabase>[1] = {}) =>
  openFreshDatabase(postgres, { ...options, through: await bouncer() })

describePetRepositoryContract('postgres through PgBouncer', async () => {
  const fresh = await through()
  return { repo: createPostgresPetRepository(fresh), close: fresh.close }
})

describeApiKeyStoreContract('postgres through PgBouncer', async () => {
  const fresh = await through()
  return { store: createPostgresApiKeyStore(fresh.db), close: fresh.close }
})

describeApiKeyStoreContract(
  'postgres through PgBouncer, from memory (LISTEN on the direct URL)',
  async () => {
    const fresh = await through()
    const store = createPostgresApiKeyStore(fresh.db, { listen: { connectionString: fresh.url } })
    await store.start()
    if (!store.servingFromMemory()) throw new Error('the store did not start serving from memory')
    return {
      store,
      close: async () => {
        await store.close()
        await fresh.close()
      },
    }
  },
)

describeApiKeyUsageLogContract('postgres through PgBouncer', async () => {
  const fresh = await through()
  return { log: createPostgresApiKeyUsageLog(fresh.db), close: fresh.close }
})

describeIdempotentPetCreationsContract('postgres through PgBouncer', async () => {
  const fresh = await through()
  return {
    creations: createPostgresIdempotentPetCreations(fresh, { clock: 'request' }),
    pets: createPostgresPetRepository(fresh),
    close: fresh.close,
  }
})

const TIMEOUTS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout']
const timeoutsOf = async (query: (text: string) => Promise<{ rows: ReadonlyArray<unknown> }>) =>
  Object.fromEntries(
    (
      await query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('${TIMEOUTS.join("', '")}') ORDER BY name`,
      )
    ).rows.map((r) => [(r as { name: string }).name, Number((r as { setting: string }).setting)]),
  )

describe('the pool behind PgBouncer in transaction mode', () => {
  const { open, track } = useFreshDatabases()

  it('finds the pooler, and sets the timeouts for each transaction instead of the session', async () => {
    const fresh = await open({
      through: await bouncer(),
      statementTimeoutMs: 4000,
      lockTimeoutMs: 3000,
      idleInTransactionTimeoutMs: 5000,
    })
    expect(await fresh.connectionFacts()).toMatchObject({ pooler: true, settings: 'per transaction' })
    const settings = await Promise.all(
      Array.from({ length: 20 }, () => timeoutsOf((text) => sql.raw(text).execute(fresh.db))),
    )
    for (const seen of settings)
      expect(seen).toEqual({
        idle_in_transaction_session_timeout: 5000,
        lock_timeout: 3000,
        statement_timeout: 4000,
      })
    // Nothing stayed on PgBouncer's server connections: a client without settings sees the server's own.
    const plain = new pg.Client({ connectionString: fresh.poolUrl })
    await plain.connect()
    try {
      const direct = new pg.Client({ connectionString: fresh.url })
      await direct.connect()
      const defaults = await timeoutsOf((text) => direct.query(text)).finally(() => direct.end())
      for (let i = 0; i < 10; i++) expect(await timeoutsOf((text) => plain.query(text))).toEqual(defaults)
    } finally {
      await plain.end()
    }
  })

  it('prepares no statement on the server connections, which change between transactions', async () => {
    const fresh = await open({ through: await bouncer() })
    const pets = createPostgresPetRepository(fresh)
    await Promise.all(Array.from({ length: 20 }, () => run(pets.list({ after: 0 as never, limit: 5 }))))
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_prepared_statements`.execute(
      fresh.db,
    )
    expect(Number(rows[0]!.n)).toBe(0)
  })

  it('still answers when told there is no pooler: a statement the server connection lacks (26000) or has from another client (42P05) stops naming them', async () => {
    const own = await startTestPgBouncer(postgres.url, { ownProcess: true, poolSize: 2 })
    try {
      const fresh = await open({ through: own, pooler: 'none', sendSessionSettings: false })
      const pets = createPostgresPetRepository(fresh)
      const added = await run(pets.add(aPetData()))
      const lists = await Promise.all(
        Array.from({ length: 40 }, () => run(pets.list({ after: 0 as never, limit: 5 }))),
      )
      for (const list of lists) expect(list).toEqual([added])
    } finally {
      await own.stop()
    }
  })

  it('has the server cancel a statement that runs over statement_timeout (57014), the connection kept', async () => {
    const fresh = await open({ through: await bouncer(), statementTimeoutMs: 300 })
    const slow = await sql`SELECT pg_sleep(5)`.execute(fresh.db).catch((error: unknown) => error)
    expect(slow).toMatchObject({ code: '57014' })
    expect(fresh.evictions()).toBe(0)
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(fresh.db)).rows).toEqual([{ one: 1 }])
  })

  it('connects although PgBouncer refuses the `options` startup parameter', async () => {
    const own = await startTestPgBouncer(postgres.url, { ownProcess: true, poolSize: 2 })
    try {
      const fresh = await open({ through: own })
      expect(await fresh.connectionFacts()).toEqual({
        pooler: true,
        settings: 'per transaction',
        startupOptionsRefused: true,
      })
      expect(await run(createPostgresPetRepository(fresh).add(aPetData()))).toMatchObject({ name: 'Rex' })
    } finally {
      await own.stop()
    }
  })

  it('refuses to migrate through the pooler, before taking any lock, and says to use a direct connection', async () => {
    const fresh = await open({ through: await bouncer(), empty: true })
    await expect(migrateToLatest(fresh)).rejects.toThrow(MigrationsNeedSessionError)
    await expect(migrateToLatest(fresh)).rejects.toThrow(/session advisory locks.*DATABASE_DIRECT_URL/s)
    const direct = createPostgresDatabase({ connectionString: fresh.url })
    track(direct)
    const { rows } = await sql`SELECT * FROM pg_locks WHERE locktype = 'advisory'
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(direct.db)
    expect(rows).toEqual([])
    // On the direct connection they run.
    expect((await migrateToLatest(direct)).length).toBeGreaterThan(0)
    // Once they ran, the pooler alone will do: an instance finds the schema up to date with a read.
    const lines: Array<string> = []
    expect(await migrateToLatest(fresh, (line) => lines.push(line))).toEqual([])
    expect(lines).toEqual(['migrations: up to date'])
  })

  it('refuses LISTEN through the pooler with a clear error, and checks every key in the database', async () => {
    const fresh = await open({ through: await bouncer() })
    const errors: Array<Error> = []
    const store = createPostgresApiKeyStore(fresh.db, {
      listen: { connectionString: fresh.poolUrl, timeoutMs: 1000 },
      onError: (e) => errors.push(e),
    })
    track(store)
    const revoker = createPostgresApiKeyStore(fresh.db)
    const { key, record } = await run(revoker.issue('partner' as ApiKeyName))
    await store.start()
    expect(store.servingFromMemory()).toBe(false)
    expect(errors[0]).toBeInstanceOf(ListenUnheardError)
    expect(errors[0]?.message).toMatch(/transaction pooler.*DATABASE_DIRECT_URL/s)
    // No LISTEN was left on a server connection that PgBouncer hands to other clients: as many
    // queries at once as the pool holds connections reach the server connections it last used.
    const listening = await Promise.all(
      Array.from({ length: 10 }, () =>
        sql<{ channel: string }>`SELECT pg_listening_channels() AS channel, pg_sleep(0.1)`.execute(fresh.db),
      ),
    )
    expect(listening.flatMap((result) => result.rows)).toEqual([])
    // Nor the lock that says a key store listens (asked through PgBouncer: pg_locks is the server's).
    expect(await keyListenerPids(fresh.db)).toEqual([])
    expect(O.isSome(await run(store.authenticate(key)))).toBe(true)
    await run(revoker.revoke(record.id))
    expect(O.isNone(await run(store.authenticate(key)))).toBe(true)
  })

  it('createPostgresStorage: requests through PgBouncer, migrations and LISTEN on the direct URL', async () => {
    const fresh = await openFreshDatabase(postgres, { empty: true })
    track(fresh)
    const lines: Array<{ level: string; message: string; fields?: Readonly<Record<string, unknown>> }> = []
    const log: StorageLog = (level, message, fields) =>
      lines.push({ level, message, ...(fields ? { fields } : {}) })
    const storage = createPostgresStorage({
      url: (await bouncer()).through(fresh.url),
      directUrl: fresh.url,
      names: { url: 'DATABASE_URL', directUrl: 'DATABASE_DIRECT_URL' },
      connectionTimeoutMs: 10_000,
      statementTimeoutMs: 10_000,
      log,
    })
    track(storage)
    expect((await storage.migrate()).length).toBeGreaterThan(0)
    expect(lines.map((l) => l.message).join('\n')).not.toMatch(/through a connection pooler/)
    await storage.start()
    expect(lines).toContainEqual({
      level: 'info',
      message: 'storage: PostgreSQL',
      fields: expect.objectContaining({
        requests: 'DATABASE_URL',
        // The URI's hosts and rules, never its password.
        requestsTarget: expect.stringMatching(/ target_session_attrs=any load_balance_hosts=disable/),
        migrations: 'DATABASE_DIRECT_URL',
        apiKeyChanges: 'DATABASE_DIRECT_URL',
        requestsReach: expect.stringMatching(/^a connection pooler/),
      }),
    })
    expect(storage.apiKeys.servingFromMemory()).toBe(true)
    // Its LISTEN connection, on the direct URL, is the one session that holds the key listeners' lock.
    const { rows } = await fresh.pool.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'animal-store-api-keys'",
    )
    expect(rows).toHaveLength(1)
    expect(await keyListenerPids(fresh.db)).toEqual([rows[0]!.pid])
    const pet = await run(storage.pets.add(aPetData()))
    expect(O.isSome(await run(storage.pets.findById(pet.id)))).toBe(true)
    expect(lines.filter((l) => l.level !== 'info')).toEqual([])
  })
})
