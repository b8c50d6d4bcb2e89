import type { PageCursor } from '@pets/domain'
import { run, runLeft } from '@pets/domain/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createPostgresDatabase, createPostgresPetRepository } from '../src/index.js'
import { patient } from './support/patient.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const REX = { name: 'Rex', categoryId: 1, status: 'available' } as never
const pidOf = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`

// What a failover leaves a pool with: connections to the old primary, which still answers, read-only.
describe('a demoted primary is never kept', () => {
  const { open, track } = useFreshDatabases()

  it('closes a connection that refused a write, and every connection made before it, then writes on a new one', async () => {
    const fresh = await open()
    await fresh.pool.query(`ALTER DATABASE "${fresh.name}" SET default_transaction_read_only = on`)
    const behind = createPostgresDatabase({ connectionString: fresh.url, poolSize: 4, ...patient })
    track(behind)
    const before = await Promise.all(
      [1, 2, 3, 4].map(async () => (await pidOf.execute(behind.db)).rows[0]!.pid),
    )
    expect(new Set(before).size).toBe(4)
    // The failover ends: new sessions take writes; the four made before are still read-only.
    await fresh.pool.query(`ALTER DATABASE "${fresh.name}" RESET default_transaction_read_only`)

    const pets = createPostgresPetRepository(behind)
    expect(await runLeft(pets.add(REX))).toMatchObject({ _tag: 'StoreUnavailable', cause: { code: '25006' } })
    // Without the rule, the three others would each answer 25006 in turn (and forever, were they never cut).
    expect(await run(pets.add(REX))).toMatchObject({ name: 'Rex' })
    expect(behind.evictions()).toBe(4)
    const after = (await pidOf.execute(behind.db)).rows[0]!.pid
    expect(before).not.toContain(after)
    expect(await run(pets.list({ limit: 10, after: 0 as PageCursor }))).toHaveLength(1)
  })

  it('keeps connections made after the refusal', async () => {
    const fresh = await open()
    const behind = createPostgresDatabase({ connectionString: fresh.url, poolSize: 1, ...patient })
    track(behind)
    const session = await behind.pool.connect()
    await session.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY')
    session.release()
    const pets = createPostgresPetRepository(behind)
    expect(await runLeft(pets.add(REX))).toMatchObject({ cause: { code: '25006' } })
    await run(pets.add(REX))
    const kept = (await pidOf.execute(behind.db)).rows[0]!.pid
    await run(pets.add(REX))
    expect((await pidOf.execute(behind.db)).rows[0]!.pid).toBe(kept)
    expect(behind.evictions()).toBe(1)
  })

  it('closes a connection past maxLifetimeSeconds, so a new answer of DNS or a balancer is followed', async () => {
    const fresh = await open()
    const behind = createPostgresDatabase({ connectionString: fresh.url, poolSize: 1, maxLifetimeSeconds: 1 })
    track(behind)
    const first = (await pidOf.execute(behind.db)).rows[0]!.pid
    expect((await pidOf.execute(behind.db)).rows[0]!.pid).toBe(first)
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect((await pidOf.execute(behind.db)).rows[0]!.pid).not.toBe(first)
  })
})
