import type { ApiKeyName } from '@pets/domain'
import { aClock, describeApiKeyStoreContract, run, runLeft } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { sql } from 'kysely'
import { createHash } from 'node:crypto'
import { describe, expect, inject, it } from 'vitest'
import { createPostgresApiKeyStore, createPostgresDatabase } from '../src/index.js'
import { openFreshDatabase } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const postgres = inject('postgres')

describeApiKeyStoreContract('postgres', async () => {
  const fresh = await openFreshDatabase(postgres)
  return { store: createPostgresApiKeyStore(fresh.db), close: fresh.close }
})

const name = (s: string) => s as ApiKeyName
const unavailable = expect.objectContaining({ _tag: 'StoreUnavailable' })

describe('postgres API-key store', () => {
  const { open, track } = useFreshDatabases()

  it('keeps only the SHA-256 digest of a key, in no column the key itself', async () => {
    const { db } = await open()
    const issued = await run(createPostgresApiKeyStore(db).issue(name('billing')))
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM api_keys`.execute(db)
    expect(rows).toHaveLength(1)
    for (const value of Object.values(rows[0]!)) expect(String(value)).not.toContain(issued.key)
    expect(rows[0]!['digest']).toBe(createHash('sha256').update(issued.key).digest('hex'))
  })

  it('writes last_used_at at most once a minute per key', async () => {
    const { db } = await open()
    const clock = aClock('2026-11-22T12:00:00Z')
    const store = createPostgresApiKeyStore(db, { now: clock.now })
    const { key } = await run(store.issue(name('a')))
    const lastUsed = async () => (await run(store.list()))[0]?.lastUsedAt?.toISOString()
    await run(store.authenticate(key))
    expect(await lastUsed()).toBe('2026-11-22T12:00:00.000Z')
    clock.set('2026-11-22T12:00:59Z')
    expect(O.isSome(await run(store.authenticate(key)))).toBe(true)
    expect(await lastUsed()).toBe('2026-11-22T12:00:00.000Z')
    clock.set('2026-11-22T12:01:01Z')
    await run(store.authenticate(key))
    expect(await lastUsed()).toBe('2026-11-22T12:01:01.000Z')
  })

  it('revokes nothing, and sends no SQL that fails, for ids that are not int8', async () => {
    const store = createPostgresApiKeyStore((await open()).db)
    await run(store.issue(name('a')))
    for (const id of ['0', '-1', '01', '1.0', '1e3', ' 1', '9223372036854775808', '99999999999999999999'])
      expect(await run(store.revoke(id))).toEqual(O.none)
  })

  it('answers StoreUnavailable, not a throw, when the database cannot be reached', async () => {
    const nowhere = createPostgresDatabase({
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
      connectionTimeoutMs: 300,
    })
    track(nowhere)
    const store = createPostgresApiKeyStore(nowhere.db)
    expect(await runLeft(store.authenticate('key'))).toEqual(unavailable)
    expect(await runLeft(store.issue(name('a')))).toEqual(unavailable)
    expect(await runLeft(store.list())).toEqual(unavailable)
    expect(await runLeft(store.revoke('1'))).toEqual(unavailable)
  })
})
