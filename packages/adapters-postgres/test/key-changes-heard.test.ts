import type { ApiKeyName } from '@pets/domain'
import { pollUntil, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresStorage,
  KEY_LISTENER_LOCK,
  keyListenerName,
  keyListenerPids,
  listenForKeyChangesHeard,
  type KeyChangesHeard,
  type ListenOptions,
  type PostgresApiKeyStore,
} from '../src/index.js'
import type { FreshDatabase } from '../src/testing/index.js'
import { startSilentProxy } from './support/silent-proxy.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const name = (s: string) => s as ApiKeyName

// `keys revoke` waits for the word of each key store listening: once a store has said it heard of a change, it
// answers nothing from its index in memory until it has read the keys again, so a revoked key is refused there.
describe('key stores say that they heard of a change of a key', () => {
  const { open, session, track } = useFreshDatabases()
  const closing: Array<{ close: () => Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((c) => c.close()))
  })

  /** Key stores that listen under one application name of the test's own, as one deployment's instances do. */
  const deployment = (fresh: FreshDatabase) => {
    const applicationName = keyListenerName(`heard-test-${randomBytes(4).toString('hex')}`)
    const store = async (listen: Partial<ListenOptions> = {}): Promise<PostgresApiKeyStore> => {
      const made = createPostgresApiKeyStore(fresh.db, {
        listen: { connectionString: fresh.url, applicationName, ...listen },
      })
      closing.push(made)
      await made.start()
      return made
    }
    return { store, pids: () => keyListenerPids(fresh.db) }
  }
  const hearing = async (
    fresh: FreshDatabase,
    listen: Partial<ListenOptions> = {},
  ): Promise<KeyChangesHeard> => {
    const heard = await listenForKeyChangesHeard(fresh.db, { connectionString: fresh.url, ...listen })
    closing.push(heard)
    return heard
  }

  it('hears each listening store answer by the pid of its LISTEN connection, and by then a key revoked before is refused there', async () => {
    const fresh = await open()
    const { store, pids } = deployment(fresh)
    const [a, b] = [await store(), await store()]
    const listeners = await pids()
    expect(listeners).toHaveLength(2)
    const heard = await hearing(fresh)
    expect(heard.notListening()).toBeUndefined()
    // Ten times over: the first request after the answers is refused, never one served from the index.
    for (let i = 0; i < 10; i++) {
      const issued = await run(a.issue(name(`k${i}`)))
      // A key issued is served by every store that answered since, as a revoked one is refused.
      expect(await heard.ask(listeners, 5000)).toEqual(new Set(listeners))
      expect(await run(a.authenticate(issued.key))).not.toEqual(O.none)
      expect(await run(b.authenticate(issued.key))).not.toEqual(O.none)
      await run(b.revoke(issued.record.id))
      expect(await heard.ask(listeners, 5000)).toEqual(new Set(listeners))
      expect(await run(a.authenticate(issued.key)), `round ${i}`).toEqual(O.none)
      expect(await run(b.authenticate(issued.key)), `round ${i}`).toEqual(O.none)
    }
  })

  it('names only the stores that said so within the time: a store whose LISTEN path went silent is left out', async () => {
    const fresh = await open()
    const target = new URL(fresh.url)
    const proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) })
    track(proxy)
    const { store, pids } = deployment(fresh)
    const speaking = await store()
    const [speakingPid] = await pids()
    await store({ connectionString: proxy.through(fresh.url), reconnectMinMs: 60_000 })
    const listeners = await pids()
    expect(listeners).toHaveLength(2)
    const heard = await hearing(fresh)
    const { record } = await run(speaking.issue(name('silenced')))
    proxy.silence()
    await run(speaking.revoke(record.id))
    const since = performance.now()
    expect(await heard.ask(listeners, 600)).toEqual(new Set([speakingPid]))
    expect(performance.now() - since).toBeGreaterThanOrEqual(550)
    // A pid that is no store's: never heard, once the time is up.
    expect(await heard.ask([speakingPid!, 1], 100)).toEqual(new Set([speakingPid]))
  })

  it('finds every key store listening on the database, whatever its storage is named and its URL says, and nothing else', async () => {
    const [fresh, elsewhere] = [await open(), await open()]
    const withParameter = (url: string, value: string) => {
      const u = new URL(url)
      u.searchParams.set('application_name', value)
      return u.toString()
    }
    const namesOf = async (pids: ReadonlyArray<number>) => {
      const { rows } = await fresh.pool.query<{ name: string }>(
        'SELECT application_name AS name FROM pg_stat_activity WHERE pid = ANY($1) ORDER BY 1',
        [pids],
      )
      return rows.map((row) => row.name)
    }
    // An embedder's storage of its own name; one whose URL names its sessions (the listener's too); a bare store.
    const billing = createPostgresStorage({ url: fresh.url, applicationName: 'billing' })
    const named = createPostgresStorage({ url: withParameter(fresh.url, 'ops-dashboard') })
    const bare = createPostgresApiKeyStore(fresh.db, { listen: { connectionString: fresh.url } })
    // Neither is a key store listening here: a session that only looks like one, and a store of another database.
    const lookalike = new pg.Client({ connectionString: withParameter(fresh.url, 'billing-api-keys') })
    const other = createPostgresApiKeyStore(elsewhere.db, { listen: { connectionString: elsewhere.url } })
    closing.push(billing, named, bare, { close: () => lookalike.end() }, other)
    await Promise.all([billing.start(), named.start(), bare.start(), lookalike.connect(), other.start()])
    for (const store of [billing.apiKeys, named.apiKeys, bare, other])
      expect(store.servingFromMemory()).toBe(true)

    const listeners = await keyListenerPids(fresh.db)
    expect(await namesOf(listeners)).toEqual(
      ['billing-api-keys', 'ops-dashboard', 'api-keys-listener'].sort(),
    )
    // Each of them answers the question by the pid found, and refuses a key revoked before it.
    const { key, record } = await run(bare.issue(name('embedded')))
    const heard = await hearing(fresh)
    expect(await heard.ask(listeners, 5000)).toEqual(new Set(listeners))
    await run(bare.revoke(record.id))
    expect(await heard.ask(listeners, 5000)).toEqual(new Set(listeners))
    for (const store of [billing.apiKeys, named.apiKeys, bare])
      expect(await run(store.authenticate(key))).toEqual(O.none)

    // Closed, a store is no longer counted; nor, its connection ended, until it listens again (a new pid).
    await billing.close()
    const dashboard = listeners[(await namesOf(listeners)).indexOf('ops-dashboard')]!
    await fresh.pool.query('SELECT pg_terminate_backend($1)', [dashboard])
    await pollUntil('the dashboard listens again', async () => {
      const now = await keyListenerPids(fresh.db)
      expect(now).not.toContain(dashboard)
      return now.length === 2 && named.apiKeys.servingFromMemory()
    })
    expect(await namesOf(await keyListenerPids(fresh.db))).toEqual(['api-keys-listener', 'ops-dashboard'])
  })

  it('counts the LISTEN connection of an earlier release by its name, which it knows no other way', async () => {
    const fresh = await open()
    const earlier = new pg.Client({ connectionString: fresh.url, application_name: 'animal-store-api-keys' })
    closing.push({ close: () => earlier.end() })
    await earlier.connect()
    const { rows } = await earlier.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    expect(await keyListenerPids(fresh.db)).toEqual([rows[0]!.pid])
  })

  it('says why it cannot hear when its own LISTEN connection cannot be made', async () => {
    const fresh = await open()
    const heard = await hearing(fresh, {
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      reconnectMinMs: 60_000,
    })
    expect(heard.notListening()).toMatchObject({ code: 'ECONNREFUSED' })
  })

  it('leaves a store to look keys up in PostgreSQL, saying why, while another session holds the lock alone, and counts it once it listens', async () => {
    const fresh = await open()
    const holder = await session(fresh)
    const [classId, objectId] = KEY_LISTENER_LOCK
    await holder.query('SELECT pg_advisory_lock($1, $2)', [classId, objectId])
    const errors: Array<Error> = []
    const made = createPostgresApiKeyStore(fresh.db, {
      listen: { connectionString: fresh.url, reconnectMinMs: 20, reconnectMaxMs: 100 },
      onError: (error) => void errors.push(error),
    })
    closing.push(made)
    const { key, record } = await run(made.issue(name('fallback')))
    await made.start()
    await pollUntil('the store says why it does not listen', () => errors.length > 0)
    expect(errors[0]!.message).toMatch(/holds advisory lock \(4242, 4\) alone/)
    // Not from memory, which it never loaded: from PostgreSQL, and no instance counted as listening.
    expect(made.fromMemory?.(key)).toBeUndefined()
    expect(await run(made.authenticate(key))).toEqual(O.some({ keyId: record.id, name: 'fallback' }))
    expect(await keyListenerPids(fresh.db)).toEqual([])
    await holder.query('SELECT pg_advisory_unlock($1, $2)', [classId, objectId])
    await pollUntil(
      'the store listens once the lock is free',
      async () => (await keyListenerPids(fresh.db)).length === 1,
    )
    await pollUntil('the store serves from memory', () => made.fromMemory?.(key) !== undefined)
  })
})
