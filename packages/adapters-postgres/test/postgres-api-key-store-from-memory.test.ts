import type { ApiKeyName } from '@pets/domain'
import { aClock, describeApiKeyStoreContract, pollUntil, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, inject, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresDatabase,
  LastUsedNotWrittenError,
  ListenUnheardError,
  type Database,
  type PostgresApiKeyStore,
  type PostgresApiKeyStoreOptions,
} from '../src/index.js'
import { openFreshDatabase, type FreshDatabase } from '../src/testing/index.js'
import { patient } from './support/patient.js'
import { startSilentProxy } from './support/silent-proxy.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

describeApiKeyStoreContract('postgres, from memory', async () => {
  const fresh = await openFreshDatabase(inject('postgres'))
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
})

const name = (s: string) => s as ApiKeyName
const isSome = async (store: PostgresApiKeyStore, key: string) => O.isSome(await run(store.authenticate(key)))

describe('postgres API-key store, from memory', () => {
  const { open, track } = useFreshDatabases()
  const stores: Array<PostgresApiKeyStore> = []
  // Registered after useFreshDatabases' hook, so it runs before it: stores close before their pools.
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()))
  })

  /** A store on `fresh` whose queries are counted, listening under an application name of its own. */
  const aStore = (
    fresh: FreshDatabase,
    options: Omit<PostgresApiKeyStoreOptions, 'listen' | 'onError'> & {
      readonly listen?: Partial<NonNullable<PostgresApiKeyStoreOptions['listen']>>
    } = {},
  ) => {
    const queries = { count: 0 }
    const errors: Array<Error> = []
    const listening = { count: 0 }
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: fresh.pool }),
      log: () => void queries.count++,
    })
    const applicationName = `api-keys-test-${randomBytes(4).toString('hex')}`
    const store = createPostgresApiKeyStore(counted, {
      ...options,
      listen: { connectionString: fresh.url, applicationName, ...options.listen },
      onError: (error) => void errors.push(error),
      onListening: () => void listening.count++,
    })
    stores.push(store)
    return { store, queries, errors, listening, applicationName }
  }

  /** Another process's store: a pool of its own on the same database. */
  const elsewhere = (fresh: FreshDatabase) => {
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 2, ...patient })
    track(other)
    return createPostgresApiKeyStore(other.db)
  }

  const listenerPids = async (fresh: FreshDatabase, applicationName: string) =>
    (
      await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = ${applicationName}`.execute(fresh.db)
    ).rows.map((r) => r.pid)

  it('opens nothing before start', async () => {
    const fresh = await open()
    const { store, applicationName } = aStore(fresh)
    const { key } = await run(store.issue(name('a')))
    expect(store.servingFromMemory()).toBe(false)
    expect(await isSome(store, key)).toBe(true)
    expect(await listenerPids(fresh, applicationName)).toEqual([])
  })

  it('after start, authenticates stored keys without a query', async () => {
    const fresh = await open()
    const clock = aClock('2026-11-22T12:00:00Z')
    const { store, queries, applicationName } = aStore(fresh, { now: clock.now })
    const a = await run(store.issue(name('a')))
    const b = await run(store.issue(name('b')))
    const revoked = await run(store.issue(name('old')))
    await run(store.revoke(revoked.record.id))
    await store.start()
    expect(store.servingFromMemory()).toBe(true)
    expect(await listenerPids(fresh, applicationName)).toHaveLength(1)
    // The first uses are written (in the background; list writes them at once), then none for a minute.
    await run(store.authenticate(a.key))
    await run(store.authenticate(b.key))
    await run(store.list())
    queries.count = 0
    for (let i = 0; i < 50; i++) {
      expect(await run(store.authenticate(a.key))).toEqual(O.some({ keyId: a.record.id, name: 'a' }))
      expect(await run(store.authenticate(b.key))).toEqual(O.some({ keyId: b.record.id, name: 'b' }))
      expect(await run(store.authenticate(revoked.key))).toEqual(O.none)
      expect(await run(store.authenticate(`${a.key}x`))).toEqual(O.none)
      expect(await run(store.authenticate(''))).toEqual(O.none)
    }
    expect(store.servingFromMemory()).toBe(true)
    expect(queries.count).toBe(0)
  })

  it('refuses a key revoked by another process promptly, and accepts one issued there', async () => {
    const fresh = await open()
    const { store, queries } = aStore(fresh)
    const other = elsewhere(fresh)
    await store.start()
    const issued = await run(other.issue(name('elsewhere')))
    await pollUntil('the key issued elsewhere is served from memory', async () => {
      queries.count = 0
      return (await isSome(store, issued.key)) && queries.count === 0
    })
    await run(other.revoke(issued.record.id))
    await pollUntil('the key revoked elsewhere is refused', async () => !(await isSome(store, issued.key)))
    await pollUntil('memory serves again', () => store.servingFromMemory())
    queries.count = 0
    expect(await isSome(store, issued.key)).toBe(false)
    expect(queries.count).toBe(0)
    // Changes made in SQL directly notify as well: a DELETE, and a TRUNCATE.
    const [deleted, truncated] = [await run(other.issue(name('d'))), await run(other.issue(name('t')))]
    await pollUntil(
      'both keys are accepted',
      async () => (await isSome(store, deleted.key)) && (await isSome(store, truncated.key)),
    )
    await sql`DELETE FROM api_keys WHERE id = ${deleted.record.id}`.execute(fresh.db)
    await pollUntil('the deleted key is refused', async () => !(await isSome(store, deleted.key)))
    await sql`TRUNCATE api_keys`.execute(fresh.db)
    await pollUntil('the truncated key is refused', async () => !(await isSome(store, truncated.key)))
  })

  it('falls back to the database while the LISTEN connection is down, and returns to memory after it reconnects', async () => {
    const fresh = await open()
    const { store, queries, errors, listening, applicationName } = aStore(fresh, {
      listen: { reconnectMinMs: 3000 },
    })
    const other = elsewhere(fresh)
    const revoked = await run(other.issue(name('revoked')))
    const kept = await run(other.issue(name('kept')))
    await store.start()
    expect(store.servingFromMemory()).toBe(true)
    expect(listening.count).toBe(1)
    const [pid] = await listenerPids(fresh, applicationName)
    await sql`SELECT pg_terminate_backend(${pid}::int)`.execute(fresh.db)
    await pollUntil('the store notices the lost connection', () => !store.servingFromMemory())
    expect(errors.map((e) => e.message).join('\n')).toMatch(/terminating connection|ended/)
    // Revoked while nobody listens: the database, asked on every call, refuses it at once.
    await run(other.revoke(revoked.record.id))
    queries.count = 0
    expect(store.servingFromMemory()).toBe(false)
    // Memory cannot tell now: a caller knows that these answers cost a query each.
    expect(store.fromMemory?.(kept.key)).toBeUndefined()
    expect(store.fromMemory?.(revoked.key)).toBeUndefined()
    expect(await isSome(store, revoked.key)).toBe(false)
    expect(await isSome(store, kept.key)).toBe(true)
    expect(queries.count).toBe(2)
    await pollUntil('memory serves again', () => store.servingFromMemory(), 10_000)
    // Told so, for the line that says it hears again.
    expect(listening.count).toBe(2)
    expect(store.fromMemory?.(kept.key)).toEqual(O.some({ keyId: kept.record.id, name: 'kept' }))
    expect(store.fromMemory?.(revoked.key)).toEqual(O.none)
    const pids = await listenerPids(fresh, applicationName)
    expect(pids).toHaveLength(1)
    expect(pids).not.toContain(pid)
    await run(store.list())
    queries.count = 0
    expect(await isSome(store, revoked.key)).toBe(false)
    expect(await isSome(store, kept.key)).toBe(true)
    expect(queries.count).toBe(0)
  })

  it('asks the database within a heartbeat and its timeout once the LISTEN path goes silent, so a key revoked meanwhile is refused', async () => {
    const fresh = await open()
    const target = new URL(fresh.url)
    const proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) })
    track(proxy)
    const { store } = aStore(fresh, {
      listen: {
        connectionString: proxy.through(fresh.url),
        heartbeatMs: 300,
        timeoutMs: 700,
        reconnectMinMs: 60_000,
      },
    })
    const other = elsewhere(fresh)
    const revoked = await run(other.issue(name('revoked')))
    await store.start()
    expect(await isSome(store, revoked.key)).toBe(true)
    // The path freezes: nothing passes, nothing closes; the revocation's NOTIFY is never heard.
    proxy.silence()
    await run(other.revoke(revoked.record.id))
    const silencedAt = performance.now()
    await pollUntil('the store stops trusting its memory', () => !store.servingFromMemory(), 5000)
    // At most a heartbeat and its timeout (1 s), with room for a busy machine.
    expect(performance.now() - silencedAt).toBeLessThan(3000)
    expect(await isSome(store, revoked.key)).toBe(false)
  })

  it('never fails an authentication because last_used_at could not be written', async () => {
    const fresh = await open()
    await sql`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql
      AS 'BEGIN RAISE EXCEPTION ''no writes today''; END'`.execute(fresh.db)
    await sql`CREATE TRIGGER refuse BEFORE UPDATE OF last_used_at ON api_keys
      FOR EACH ROW EXECUTE FUNCTION refuse()`.execute(fresh.db)
    const inMemory = aStore(fresh, { lastUsedFlushMs: 10 })
    const fromDatabase = aStore(fresh, { lastUsedFlushMs: 10 })
    await inMemory.store.start()
    const { key, record } = await run(inMemory.store.issue(name('a')))
    for (const { store, errors } of [inMemory, fromDatabase]) {
      expect(await run(store.authenticate(key))).toEqual(O.some({ keyId: record.id, name: 'a' }))
      await pollUntil('the failed write is reported', () => errors.length > 0)
      expect(errors[0]).toBeInstanceOf(LastUsedNotWrittenError)
      expect(errors[0]?.message).toMatch(/last used/)
      expect(errors[0]?.cause).toMatchObject({ message: 'no writes today' })
      expect(await isSome(store, key)).toBe(true)
    }
    expect(fromDatabase.store.servingFromMemory()).toBe(false)
    // A failed write is forgotten: once writes work again, the next use is written.
    await sql`DROP TRIGGER refuse ON api_keys`.execute(fresh.db)
    expect(await isSome(inMemory.store, key)).toBe(true)
    expect((await run(inMemory.store.list()))[0]?.lastUsedAt).toBeInstanceOf(Date)
  })

  it('refuses, and keeps asking the database, when its LISTEN connection does not hear the pool', async () => {
    // What a transaction pooler does to LISTEN, shown here by listening on another database.
    const fresh = await open()
    const another = await open()
    const { store, errors, queries } = aStore(fresh, {
      listen: { connectionString: another.url, timeoutMs: 300 },
    })
    const { key } = await run(store.issue(name('a')))
    await store.start()
    expect(store.servingFromMemory()).toBe(false)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(ListenUnheardError)
    expect(errors[0]?.message).toMatch(/transaction pooler/)
    queries.count = 0
    expect(await isSome(store, key)).toBe(true)
    expect(queries.count).toBe(1)
  })

  it('stays on the database until the trigger that notifies changes is there', async () => {
    const fresh = await open()
    await sql`DROP TRIGGER api_keys_notify_change ON api_keys`.execute(fresh.db)
    const { store, errors, queries } = aStore(fresh, { listen: { reconnectMinMs: 50, reconnectMaxMs: 50 } })
    const { key } = await run(store.issue(name('a')))
    await store.start()
    expect(store.servingFromMemory()).toBe(false)
    expect(errors[0]?.message).toMatch(/no enabled trigger api_keys_notify_change .*2026-11-22-0005/)
    queries.count = 0
    expect(await isSome(store, key)).toBe(true)
    expect(queries.count).toBe(1)
    await sql`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF revoked_at, digest, name ON api_keys
      FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change()`.execute(fresh.db)
    await pollUntil('memory serves once the trigger is there', () => store.servingFromMemory())
  })

  it('answers from the database while the LISTEN connection cannot be made', async () => {
    const fresh = await open()
    const unreachable = {
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      reconnectMinMs: 50,
      reconnectMaxMs: 50,
    }
    const { store, errors } = aStore(fresh, { listen: unreachable })
    const { key } = await run(store.issue(name('a')))
    await store.start()
    expect(store.servingFromMemory()).toBe(false)
    expect(await isSome(store, key)).toBe(true)
    await pollUntil('it tries again', () => errors.length >= 2)
    expect(errors[0]).toMatchObject({ code: 'ECONNREFUSED' })
    // Closed, it stops trying: over the time in which a twin, left open, tries five times more.
    await store.close()
    const tries = errors.length
    const twin = aStore(fresh, { listen: unreachable })
    await twin.store.start()
    await pollUntil('the open twin tries again and again', () => twin.errors.length >= 6)
    expect(errors.length).toBe(tries)
  })

  it('ends the LISTEN connection on close, and writes the last uses first', async () => {
    const fresh = await open()
    const { store, applicationName } = aStore(fresh, { lastUsedFlushMs: 60_000 })
    const { key } = await run(store.issue(name('a')))
    await store.start()
    expect(await isSome(store, key)).toBe(true)
    await store.close()
    expect(store.servingFromMemory()).toBe(false)
    await pollUntil(
      'the LISTEN connection is gone',
      async () => (await listenerPids(fresh, applicationName)).length === 0,
    )
    const { rows } = await sql<{ last_used_at: Date | null }>`SELECT last_used_at FROM api_keys`.execute(
      fresh.db,
    )
    expect(rows[0]?.last_used_at).toBeInstanceOf(Date)
  })
})
