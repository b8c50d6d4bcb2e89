import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { createHash } from 'node:crypto'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { rememberSecret, startTestService, type ChildService } from './support/test-service.js'

const KEY = 'read-only-e2e-key-5be8a2'
// A key stored in the database, first used while the database refuses writes: its last_used_at
// cannot be written then, and its request must not care.
const STORED = 'read-only-e2e-stored-key-93d1f0'
const REX = JSON.stringify({ name: 'Rex', categoryId: 1 })

const post = (url: string, body: string, idempotencyKey?: string) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': 'application/json',
      ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
    },
    body,
  })
const get = (url: string, path: string, key = KEY) =>
  fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } })

/**
 * What a failover does to the sessions of a service: the database turns read-only (as a standby
 * would be, or the old primary while it is demoted), and every session is cut, so each new one
 * starts read-only. Run on a session that is not read-only, which is then closed.
 */
const setReadOnly = async (database: FreshDatabase, readOnly: boolean) => {
  const client = await database.pool.connect()
  try {
    await client.query('SET default_transaction_read_only = off')
    await client.query(
      `ALTER DATABASE "${database.name}" ${readOnly ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`,
    )
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
  } finally {
    client.release(true)
  }
}

describe('a database that refuses writes (a failover in progress)', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it(
    'answers every write 503 with Retry-After, every read 200, /readyz 503, and recovers',
    { timeout: 60_000 },
    async () => {
      const database = await openFreshDatabase(inject('postgres'))
      cleanups.push(database.close)
      rememberSecret(STORED)
      const digest = createHash('sha256').update(STORED).digest('hex')
      await database.pool.query("INSERT INTO api_keys (name, digest) VALUES ('stored', $1)", [digest])
      const svc: ChildService = await startTestService({
        mode: 'child',
        env: { DATABASE_URL: database.url, API_KEYS: KEY, MIGRATE_ON_START: 'false' },
        timeoutMs: 30_000,
      })
      cleanups.push(async () => void (await svc.stop('SIGKILL')))
      const first = await post(svc.url, REX, 'before-the-failover')
      expect(first.status).toBe(201)
      const pet = (await first.json()) as { id: number }

      await setReadOnly(database, true)
      await pollUntil(
        '/readyz turns 503',
        async () => (await fetch(`${svc.url}/readyz`)).status === 503,
        10_000,
      )

      const writes = [await post(svc.url, REX), await post(svc.url, REX, 'during-the-failover')]
      for (const write of writes) {
        expect(write.status).toBe(503)
        expect(write.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(await write.json()).toMatchObject({ code: 'unavailable', status: 503 })
      }
      // A retry of a request that was performed before is a read: it is answered as before.
      const replay = await post(svc.url, REX, 'before-the-failover')
      expect(replay.status).toBe(201)
      expect(((await replay.json()) as { id: number }).id).toBe(pet.id)
      // Reads, including with a stored key used for the first time (no write on the way).
      for (const key of [KEY, STORED]) {
        const list = await get(svc.url, '/v1/pets', key)
        expect(list.status).toBe(200)
        expect(await list.json()).toEqual([{ id: pet.id, name: 'Rex', categoryId: 1, status: 'available' }])
        expect((await get(svc.url, `/v1/pets/${pet.id}`, key)).status).toBe(200)
      }
      // The stored key's use could not be written to last_used_at; the requests above did not care. The
      // failure counts in the outage's lines: as the call that began one, or among the calls of the line that
      // ends it (reads are served meanwhile, so one ends a second after the last failure).
      await pollUntil(
        'the failed write of last_used_at is logged',
        async () => {
          expect((await get(svc.url, '/v1/pets', KEY)).status).toBe(200)
          await new Promise((resolve) => setTimeout(resolve, 100))
          return svc
            .output()
            .split('\n')
            .some((l) => /PostgreSQL (cannot serve|serves) calls/.test(l) && l.includes('"apiKeys.lastUsed"'))
        },
        10_000,
      )
      const ready = await fetch(`${svc.url}/readyz`)
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({
        code: 'unavailable',
        status: 503,
        message: expect.stringContaining('refuses writes'),
      })

      // The failover ends: writes come back by themselves.
      await setReadOnly(database, false)
      await pollUntil(
        '/readyz turns 200',
        async () => (await fetch(`${svc.url}/readyz`)).status === 200,
        10_000,
      )
      expect((await post(svc.url, REX, 'during-the-failover')).status).toBe(201)

      const lines = svc.output().split('\n')
      // Each 503's request line says why; the calls that failed are an outage's warn line, not one each.
      const refused =
        /"status":503,.*"store":\{"operation":"(pets\.add|creations\.addOnce)","sqlstate":"25006"/
      expect(lines.filter((l) => refused.test(l))).toHaveLength(2)
      expect(
        lines.some((l) => l.includes('PostgreSQL cannot serve calls') && l.includes('"code":"25006"')),
      ).toBe(true)
      expect(lines.some((l) => l.includes('refuses writes') && l.includes('"level":40'))).toBe(true)
      expect(svc.output()).not.toContain('"status":500')
      expect(await svc.stop()).toBe(0)
    },
  )
})
