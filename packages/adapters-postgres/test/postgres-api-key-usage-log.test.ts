import { describeApiKeyUsageLogContract, run, runLeft } from '@pets/domain/testing'
import { sql } from 'kysely'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, expect, inject, it } from 'vitest'
import {
  createPostgresApiKeyUsageLog,
  createPostgresDatabase,
  createPostgresStoreHealth,
} from '../src/index.js'
import { openFreshDatabase } from '../src/testing/index.js'
import { patient } from './support/patient.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const postgres = inject('postgres')

describeApiKeyUsageLogContract('postgres', async () => {
  const fresh = await openFreshDatabase(postgres)
  return { log: createPostgresApiKeyUsageLog(fresh.db), close: fresh.close }
})

const unavailable = expect.objectContaining({ _tag: 'StoreUnavailable' })
const entry = (keyId: string, calls: number) => ({
  keyId,
  operation: 'getPet',
  calls,
  lastCalledAt: new Date('2026-11-22T12:00:00Z'),
})

describe('postgres usage log and store health', () => {
  const { open, track } = useFreshDatabases()
  const nowhere = () => {
    const database = createPostgresDatabase({
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      connectionTimeoutMs: 300,
    })
    track(database)
    return database
  }

  it('adds up the batches of two instances that write the same keys at once', async () => {
    const fresh = await open()
    const other = createPostgresDatabase({ connectionString: fresh.url, poolSize: 5, ...patient })
    track(other)
    const logs = [createPostgresApiKeyUsageLog(fresh.db), createPostgresApiKeyUsageLog(other.db)]
    const batch = ['1', '2', '3', '4', 'env-1', 'env-2'].map((k) => entry(k, 1))
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => run(logs[i % 2]!.add(i % 3 === 0 ? [...batch].reverse() : batch))),
    )
    const listed = await run(logs[0]!.list())
    expect(listed.map((c) => c.calls)).toEqual([40, 40, 40, 40, 40, 40])
  })

  it('keeps key ids as text, and refuses a count that is not positive', async () => {
    const { db } = await open()
    const log = createPostgresApiKeyUsageLog(db)
    await run(log.add([entry('env-1', 1), entry('0042', 2)]))
    expect((await run(log.list())).map((c) => c.keyId)).toEqual(['0042', 'env-1'])
    await expect(log.add([entry('1', 0)])()).rejects.toMatchObject({ code: '23514' })
  })

  it('answers StoreUnavailable, not a throw, when the database cannot be reached', async () => {
    const log = createPostgresApiKeyUsageLog(nowhere().db)
    expect(await runLeft(log.add([entry('1', 1)]))).toEqual(unavailable)
    expect(await runLeft(log.list())).toEqual(unavailable)
  })

  it('finds the store healthy when SELECT 1 answers', async () => {
    const { db } = await open()
    expect(await run(createPostgresStoreHealth(db).check())).toBeUndefined()
  })

  it('finds the store unhealthy when the database cannot be reached', async () => {
    expect(await runLeft(createPostgresStoreHealth(nowhere().db).check())).toEqual(unavailable)
  })

  it('finds the store unhealthy after its timeout when the database accepts but never answers', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => void sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    const hanging = createPostgresDatabase({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
      connectionTimeoutMs: 20_000,
    })
    try {
      const left = await runLeft(createPostgresStoreHealth(hanging.db, { timeoutMs: 200 }).check())
      expect(left).toMatchObject({
        _tag: 'StoreUnavailable',
        cause: { message: expect.stringMatching(/within 200 ms/) },
      })
    } finally {
      sockets.forEach((s) => s.destroy())
      await hanging.close().catch(() => {})
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })

  it('creates api_key_usage with its primary key on key and operation', async () => {
    const { db } = await open()
    const { rows } = await sql<{ column_name: string }>`
      SELECT a.attname AS column_name FROM pg_index i
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = 'api_key_usage'::regclass AND i.indisprimary ORDER BY a.attname`.execute(db)
    expect(rows.map((r) => r.column_name)).toEqual(['key_id', 'operation'])
  })
})
