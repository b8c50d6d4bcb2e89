import { aPetData, run } from '@pets/domain/testing'
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import {
  createPostgresDatabase,
  createPostgresPetRepository,
  isUnavailableError,
  PET_INSERT_LOCK,
} from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const NAMES = [
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'tcp_keepalives_idle',
  'tcp_keepalives_interval',
  'tcp_keepalives_count',
  'tcp_user_timeout',
]

// In the settings' base units: ms for the timeouts, s for the keepalives, ms for tcp_user_timeout.
const settingsOf = async <DB>(db: Kysely<DB>) =>
  Object.fromEntries(
    (
      await sql<{ name: string; setting: string }>`
        SELECT name, setting FROM pg_settings WHERE name = ANY(${NAMES})`.execute(db)
    ).rows.map((r) => [r.name, Number(r.setting)]),
  )

describe('what every session of the pool is told at connection', () => {
  const { open, track } = useFreshDatabases()

  it('gets its timeouts and TCP keepalives, in the one startup parameter `options`', async () => {
    const handle = await open({
      statementTimeoutMs: 600,
      lockTimeoutMs: 300,
      idleInTransactionTimeoutMs: 900,
      keepAlive: { idleMs: 4000, intervalMs: 2000, count: 5 },
    })
    const { db } = handle
    expect(await settingsOf(db)).toEqual({
      statement_timeout: 600,
      lock_timeout: 300,
      idle_in_transaction_session_timeout: 900,
      tcp_keepalives_idle: 4,
      tcp_keepalives_interval: 2,
      tcp_keepalives_count: 5,
      tcp_user_timeout: 14000,
    })
  })

  it("puts the options of the connection string after its own, so that the operator's win", async () => {
    const fresh = await open()
    const url = new URL(fresh.url)
    url.searchParams.set('options', '-c lock_timeout=1234')
    const database = createPostgresDatabase({ connectionString: url.toString() })
    track(database)
    expect(await settingsOf(database.db)).toMatchObject({ lock_timeout: 1234, statement_timeout: 750 })
  })

  it('sends none of them with sendSessionSettings: false, for a pooler that refuses `options`', async () => {
    const handle = await open({ sendSessionSettings: false })
    const { db } = handle
    expect(await settingsOf(db)).toMatchObject({
      statement_timeout: 0,
      lock_timeout: 0,
      idle_in_transaction_session_timeout: 0,
    })
  })

  it('has the server end a session left idle in a transaction, which frees the locks it held', async () => {
    const fresh = await open({ idleInTransactionTimeoutMs: 300 })
    const client = await fresh.pool.connect()
    await client.query('BEGIN')
    await client.query(`SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK})`)
    // A client that froze right here would keep every insert of every instance waiting.
    const startedAt = performance.now()
    const pet = await run(createPostgresPetRepository(fresh, { lockTimeoutMs: 20_000 }).add(aPetData()))
    expect(pet.name).toBe('Rex')
    // The 300 ms idle timeout freed the lock, long before the insert's 20 s lock timeout.
    expect(performance.now() - startedAt).toBeLessThan(10_000)
    const late = await client.query('SELECT 1').catch((error: unknown) => error)
    expect(isUnavailableError(late)).toBe(true)
    client.release(true)
  })
})

describe('statements sent directly to PostgreSQL', () => {
  const { open } = useFreshDatabases()

  it('are prepared once on each connection (named), and answer as unnamed ones do', async () => {
    const handle = await open({ poolSize: 1 })
    const { db } = handle
    const pets = createPostgresPetRepository(handle)
    const added = await run(pets.add(aPetData()))
    for (let i = 0; i < 3; i++) expect(await run(pets.list({ after: 0 as never, limit: 5 }))).toEqual([added])
    const { rows } = await sql<{ name: string; statement: string }>`
      SELECT name, statement FROM pg_prepared_statements WHERE statement ILIKE ${'%FROM list_pets(%'}`.execute(
      db,
    )
    expect(rows.map((r) => r.name)).toEqual([expect.stringMatching(/^pets_\d+$/)])
  })
})
