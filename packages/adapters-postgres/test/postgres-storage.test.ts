import type { ApiKeyId, ApiKeyName, PageCursor, PetId } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { describeStorageContract, pollUntil, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import {
  createPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
  type StorageLog,
} from '../src/index.js'
import { openFreshDatabase, startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'
import { startSilentProxy } from './support/silent-proxy.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// The storage module whole, as the service opens it: directly on PostgreSQL, and with its requests
// through PgBouncer in transaction mode (migrations and LISTEN on the direct URL).
const postgres = inject('postgres')
let bouncer: Promise<TestPgBouncer> | undefined
afterAll(async () => {
  await (await bouncer)?.stop()
})

const opener = (through: () => Promise<TestPgBouncer | undefined>) => async () => {
  const fresh = await openFreshDatabase(postgres)
  const pgbouncer = await through()
  const options: PostgresStorageOptions = {
    url: pgbouncer === undefined ? fresh.url : pgbouncer.through(fresh.url),
    directUrl: fresh.url,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 10_000,
    // The contract dates its idempotency records by instants of its own.
    idempotencyClock: 'request',
  }
  const storage = createPostgresStorage(options)
  let closing: Promise<void> | undefined
  return {
    ...storage,
    close: () =>
      (closing ??= (async () => {
        await storage.close()
        await fresh.close()
      })()),
  }
}

describeStorageContract(
  'postgres',
  opener(async () => undefined),
)
describeStorageContract(
  'postgres through PgBouncer',
  opener(() => (bouncer ??= startTestPgBouncer(postgres.url))),
)

describe("the PostgreSQL storage's authenticator", () => {
  it('trusts the keys it was given from memory, and remembers a key a query found unknown while the index of stored keys is down', async () => {
    const fresh = await openFreshDatabase(postgres)
    // Never started: the index of stored keys does not serve, so stored keys are looked up.
    const storage = createPostgresStorage({
      url: fresh.url,
      trustedKeys: [{ key: 'given-key', id: 'env-ops', name: 'ops' }],
    })
    try {
      const { authenticator } = storage
      expect(authenticator.fromMemory?.('given-key')).toEqual(O.some({ keyId: 'env-ops', name: 'ops' }))
      expect(authenticator.fromMemory?.('guess')).toBeUndefined()
      expect(await run(authenticator.authenticate('guess'))).toEqual(O.none)
      expect(authenticator.fromMemory?.('guess')).toEqual(O.none)
      const issued = await run(storage.apiKeys.issue('billing' as ApiKeyName))
      expect(authenticator.fromMemory?.(issued.key)).toBeUndefined()
      expect(await run(authenticator.authenticate(issued.key))).toEqual(
        O.some({ keyId: issued.record.id, name: 'billing' }),
      )
    } finally {
      await storage.close()
      await fresh.close()
    }
  })
})

// The storage's log as lines kept in order.
const recordedLines = () => {
  const lines: Array<{ level: string; message: string; fields: Readonly<Record<string, unknown>> }> = []
  const log: StorageLog = (level, message, fields = {}) => void lines.push({ level, message, fields })
  return { lines, log }
}

describe("the PostgreSQL storage's lines for calls it cannot serve", () => {
  const { open, track } = useFreshDatabases()
  const everything = { limit: 100, after: 0 as PageCursor }

  it('are one warn line for an outage however many calls fail, and one info line once a call is served a second after the last failure; each call keeps its details for its request line', async () => {
    const fresh = await open()
    const target = new URL(fresh.url)
    const proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) })
    track(proxy)
    // A storage whose first listing was served, so that its pool holds a connection when the proxy falls
    // silent. Under a busy CI machine that listing once took longer than its 300 ms (57014): a warm-up that
    // failed logged the outage's line itself, so such a storage is closed and a new one tried.
    const warmed = async (
      attempts: number,
    ): Promise<ReturnType<typeof recordedLines> & { storage: PostgresStorage }> => {
      const { lines, log } = recordedLines()
      const storage = createPostgresStorage({
        url: proxy.through(fresh.url),
        connectionTimeoutMs: 300,
        statementTimeoutMs: 300,
        log,
      })
      track(storage)
      const first = await storage.pets.list(everything)()
      if (E.isRight(first)) return { lines, log, storage }
      if (attempts === 1) throw new Error(`no warm-up listing within 300 ms: ${JSON.stringify(first.left)}`)
      await storage.close()
      return warmed(attempts - 1)
    }
    const { lines, storage } = await warmed(5)
    proxy.silence()
    // Requests' calls and background work, 40 at once: each its own StoreUnavailable, one line in all.
    const calls = Array.from({ length: 10 }, () => [
      storage.pets.findById(1 as PetId),
      storage.pets.list(everything),
      storage.usageLog.add([
        { keyId: 'k' as ApiKeyId, operation: 'listPets', calls: 1, lastCalledAt: new Date() },
      ]),
      storage.creations.removeExpired(new Date()),
    ]).flat()
    const answers = await Promise.all(calls.map((call) => call()))
    for (const answer of answers) expect(E.isLeft(answer)).toBe(true)
    // What the line of the request's 503 carries (adapters-http's serveRequests writes it).
    expect(answers[0]).toEqual(
      E.left(
        expect.objectContaining({
          _tag: 'StoreUnavailable',
          details: { operation: 'pets.findById', sqlstate: null, retried: false },
        }),
      ),
    )
    proxy.restore()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    await run(storage.pets.list(everything))
    const outage = lines.filter((line) => /PostgreSQL (cannot|still cannot|serves) /.test(line.message))
    expect(outage.map((line) => [line.level, line.message])).toEqual([
      [
        'warn',
        'PostgreSQL cannot serve calls: each is answered 503 unavailable (background work is tried again later) until it can',
      ],
      ['info', 'PostgreSQL serves calls again'],
    ])
    // The first call that failed, whichever it was: pg's timeout or the guard's (no SQLSTATE: nothing answered).
    expect(outage[0]!.fields).toEqual({
      operation: expect.stringMatching(/^(pets|usageLog|creations)\./),
      code: null,
      cause: expect.stringMatching(/timeout/),
    })
    expect(outage[1]!.fields).toMatchObject({ failed: 40 })
    // No line of the outage carries a stack: nothing in it is a bug.
    expect(JSON.stringify(lines)).not.toMatch(/\n\s+at /)
  })

  it('says in one line that the connections a pg_terminate_backend broke are replaced, without a stack', async () => {
    const fresh = await open()
    const { lines, log } = recordedLines()
    const storage = createPostgresStorage({
      url: fresh.url,
      applicationName: 'broken-lines',
      log,
    })
    track(storage)
    // Four connections, idle in the pool once answered.
    await Promise.all(Array.from({ length: 4 }, () => storage.pool.query('SELECT pg_sleep(0.05)')))
    const { rows } = await fresh.pool.query<{ ended: string }>(
      "SELECT count(pg_terminate_backend(pid)) AS ended FROM pg_stat_activity WHERE application_name = 'broken-lines'",
    )
    expect(rows[0]?.ended).toBe('4')
    await pollUntil('the line of the burst', () => lines.some((l) => l.message.includes('broke')), 5_000)
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'PostgreSQL connections broke; the pool replaces them',
        fields: {
          connections: 4,
          code: '57P01',
          cause: 'terminating connection due to administrator command',
        },
      },
    ])
    // The pool serves on, from new connections.
    await run(storage.pets.list(everything))
  })

  it('says in one line that the LISTEN connection is lost, whatever the tries to connect again, and in one that it hears again', async () => {
    const fresh = await open()
    const { lines, log } = recordedLines()
    const storage = createPostgresStorage({
      url: fresh.url,
      applicationName: 'listen-lines',
      log,
    })
    track(storage)
    await storage.start()
    expect(storage.apiKeys.servingFromMemory()).toBe(true)
    // Its session ends, and for 2 s no new one is let in (55000): it tries again 3 or 4 times meanwhile.
    // From another database: PostgreSQL refuses it from the database itself.
    const admin = new pg.Client({ connectionString: postgres.url })
    await admin.connect()
    track({ close: () => admin.end() })
    await admin.query(`ALTER DATABASE "${fresh.name}" ALLOW_CONNECTIONS false`)
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen-lines-api-keys'",
    )
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await admin.query(`ALTER DATABASE "${fresh.name}" ALLOW_CONNECTIONS true`)
    await pollUntil('keys are checked in memory again', () => storage.apiKeys.servingFromMemory(), 15_000)
    const listen = lines.filter((line) => line.message.startsWith('API keys'))
    expect(listen).toEqual([
      {
        level: 'warn',
        message: 'API keys: not hearing of changes; each key is looked up in PostgreSQL meanwhile',
        fields: { code: '57P01', cause: 'terminating connection due to administrator command' },
      },
      {
        level: 'info',
        message: 'API keys: hearing of changes again; keys are checked in memory',
        fields: { downForMs: expect.any(Number), attempts: expect.any(Number) },
      },
    ])
    expect(listen[1]!.fields['attempts']).toBeGreaterThanOrEqual(2)
  })
})
