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
      const { rows } = await sql<{ statement: string; generic_plans: string }>`
      SELECT statement, generic_plans FROM pg_prepared_statements
      WHERE statement LIKE '%FROM pet_insert_intents%' AND statement NOT LIKE '%pg_prepared_statements%'`.execute(
        db,
      )
      const plansOf = (filter: string) =>
        Number(rows.find((r) => r.statement.includes(filter))?.generic_plans)
      // Five plans of their own first (PostgreSQL's rule), then the one kept: no planning per listing.
      for (const filter of ['WHERE id > $1', "status = 'sold'", "status = 'pending'"])
        expect(plansOf(filter), filter).toBeGreaterThan(0)
      // The plan kept for the rare status reads its index, not a million rows.
      const pending = rows.find((r) => r.statement.includes("status = 'pending'"))!.statement
      await sql.raw(`PREPARE rare(bigint, bigint) AS ${pending.replace(/^PREPARE \S+ AS /, '')}`).execute(db)
      await sql`SET plan_cache_mode = force_generic_plan`.execute(db)
      const { rows: plan } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN EXECUTE rare(0, 21)`.execute(db)
      await sql`RESET plan_cache_mode`.execute(db)
      await sql`DEALLOCATE rare`.execute(db)
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
        /Index Scan using pets_status_id_idx on pets\b/,
      )
    },
  )
})
