import type { PageCursor } from '@pets/domain'
import { aPetData, run, runLeft } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { createPostgresPetRepository } from '../src/index.js'
import { databaseUrl, quoteIdent, withAdminClient } from '../src/testing/with-admin-client.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const everything = { limit: 100, after: 0 as PageCursor }

// SQLSTATEs that mean "wrong" in a statement mean "not now" when the server refuses a new session: no
// request caused it, and every request meets it until an operator mends it (a 503, never a 500).
describe('a server that refuses new sessions', () => {
  const { open } = useFreshDatabases()

  const onAdmin = (url: string, ...statements: ReadonlyArray<string>) =>
    withAdminClient(databaseUrl(url, 'postgres'), async (client) => {
      for (const statement of statements) await client.query(statement)
    })
  const endSessions = (name: string) =>
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`

  it('answers StoreUnavailable while the database takes no connections (55000), and serves once it does', async () => {
    const fresh = await open()
    const repo = createPostgresPetRepository(fresh)
    const pet = await run(repo.add(aPetData()))
    await onAdmin(
      fresh.url,
      `ALTER DATABASE ${quoteIdent(fresh.name)} ALLOW_CONNECTIONS false`,
      endSessions(fresh.name),
    )
    // pg_terminate_backend only signals: until the pool hears its idle session end, a list could go out on it
    // and meet that end (57P01) instead of a refused new session.
    await expect.poll(() => fresh.pool.totalCount, { timeout: 10_000 }).toBe(0)

    expect(await runLeft(repo.list(everything))).toMatchObject({
      _tag: 'StoreUnavailable',
      cause: { code: '55000', message: expect.stringContaining('not currently accepting connections') },
    })
    expect(await runLeft(repo.add(aPetData()))).toMatchObject({
      _tag: 'StoreUnavailable',
      cause: { code: '55000' },
    })

    await onAdmin(fresh.url, `ALTER DATABASE ${quoteIdent(fresh.name)} ALLOW_CONNECTIONS true`)
    expect(await run(repo.list(everything))).toEqual([pet])
  })

  it('answers StoreUnavailable when its database was dropped (3D000)', async () => {
    const fresh = await open()
    const repo = createPostgresPetRepository(fresh)
    await run(repo.list(everything))
    await onAdmin(fresh.url, `DROP DATABASE ${quoteIdent(fresh.name)} WITH (FORCE)`)

    expect(await runLeft(repo.list(everything))).toMatchObject({
      _tag: 'StoreUnavailable',
      cause: { code: '3D000' },
    })
  })
})
