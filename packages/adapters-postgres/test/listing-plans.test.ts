import type { PageCursor, PageLimit, PetStatus } from '@pets/domain'
import { run } from '@pets/domain/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createPostgresPetRepository } from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const page = (after: number, status?: PetStatus) =>
  status === undefined
    ? { after: after as PageCursor, limit: 21 as PageLimit }
    : { after: after as PageCursor, limit: 21 as PageLimit, status }

describe('the listing statements at a million pets', () => {
  const { open } = useFreshDatabases()

  it(
    'keep one plan each, planned once, and a status few pets have reads its index',
    { timeout: 120_000 },
    async () => {
      // One connection: pg_prepared_statements shows that session's statements. No statement timeout: the
      // seeding passed the tests' 10 s on a machine running several packages' tests.
      const handle = await open({ poolSize: 1, statementTimeoutMs: 0 })
      const { db } = handle
      // As the benchmark seeds them: a million pets by SQL, then the planner's statistics.
      await sql`INSERT INTO pets (name, category_id, status)
      SELECT 'pet ' || g, 1 + g % 50, (ARRAY['available', 'pending', 'sold'])[1 + g % 3]
      FROM generate_series(1, 1000000) AS g`.execute(db)
      // No pet is pending but one: a status few pets have, whose page must not read the whole table.
      await sql`UPDATE pets SET status = 'available' WHERE status = 'pending' AND id < 999000`.execute(db)
      await sql`VACUUM ANALYZE pets`.execute(db)
      const repo = createPostgresPetRepository(handle)
      for (let i = 0; i < 8; i++) {
        await run(repo.list(page(i * 1000)))
        await run(repo.list(page(0, 'sold')))
        await run(repo.list(page(0, 'pending')))
      }
      // PL/pgSQL keeps the plan of each of list_pets's queries in a context of its own: "CachedPlan" once the
      // generic plan is kept (five plans of their own first: PostgreSQL's rule), none while each is planned.
      const { rows } = await sql<{ ident: string }>`
        SELECT ident FROM pg_backend_memory_contexts WHERE name = 'CachedPlan'`.execute(db)
      const kept = (filter: string) => rows.filter((r) => r.ident.includes(filter)).length
      for (const filter of [
        'WHERE p.id > p_after AND',
        "WHERE p.status = 'sold' AND",
        "WHERE p.status = 'pending' AND",
      ])
        expect(kept(filter), filter).toBe(1)
      // The plan kept for the rare status reads its index: the buffers of a page, not of a million rows (the
      // primary key's plan, filtered, reads thousands). A function's buffers are its queries'.
      const { rows: plan } = await sql<{
        'QUERY PLAN': string
      }>`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
        SELECT * FROM list_pets('pending', 0, 21)`.execute(db)
      const buffers = plan
        .map((r) => r['QUERY PLAN'])
        .join('\n')
        .match(/Buffers: shared hit=(\d+)(?: read=(\d+))?/)
      expect(buffers, plan.map((r) => r['QUERY PLAN']).join('\n')).not.toBeNull()
      const read = Number(buffers![1]) + Number(buffers![2] ?? 0)
      expect(read).toBeGreaterThan(0)
      expect(read).toBeLessThan(200)
    },
  )
})
