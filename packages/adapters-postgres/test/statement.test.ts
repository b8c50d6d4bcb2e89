import { aPetData, describePetRepositoryContract, run } from '@pets/domain/testing'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { describe, expect, inject, it } from 'vitest'
import { createPostgresPetRepository, fromKysely, type Database, type PostgresHandle } from '../src/index.js'
import type { Statement } from '../src/runner/statement.js'
import { openFreshDatabase } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const postgres = inject('postgres')

// The repository's statements through kysely, on a handle that createPostgresDatabase did not make
// (pg's own int8 parsing, no guard): the same contract.
describePetRepositoryContract('postgres, on a kysely handle made elsewhere', async () => {
  const fresh = await openFreshDatabase(postgres)
  const pool = new pg.Pool({ connectionString: fresh.url, max: 4 })
  // Dropping the database at the end ends connections that pg may still be closing.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    repo: createPostgresPetRepository(fromKysely(db)),
    close: async () => {
      await db.destroy()
      await fresh.close()
    },
  }
})

type Pair = { readonly a: number; readonly b: string | null }
const pair = (text: string, columns: ReadonlyArray<string> = ['a', 'b']): Statement<Pair> => ({
  text,
  columns,
  decode: (fields) => ({ a: Number(fields[0]), b: fields[1] ?? null }),
})
const PAIRS = pair(
  'SELECT g AS a, CASE WHEN g % 2 = 0 THEN NULL ELSE $1 || g END AS b FROM generate_series(1, $2::int) AS g',
)

const runOn = ({ runner }: PostgresHandle) => {
  const runPrepared = runner.runPrepared
  return <Row>(statement: Statement<Row>, values: ReadonlyArray<string | null>) =>
    new Promise<Array<Row>>((resolve, reject) =>
      runPrepared(statement, values, (error, rows) => (error === undefined ? resolve(rows) : reject(error))),
    )
}

describe('statements of the request path (statement.ts)', () => {
  const { open } = useFreshDatabases()
  const expected = [
    { a: 1, b: 'x1' },
    { a: 2, b: null },
    { a: 3, b: 'x3' },
  ]

  it('are prepared once per connection, then run without being parsed or described again', async () => {
    const handle = await open({ poolSize: 1 })
    const { db } = handle
    const runStatement = runOn(handle)
    for (let i = 0; i < 5; i++) expect(await runStatement(PAIRS, ['x', '3'])).toEqual(expected)
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
      db,
    )
    expect(rows.map((r) => r.statement)).toEqual([PAIRS.text])
  })

  it.each([
    ['named, on a direct connection', {}],
    [
      'unnamed, as behind a pooler that keeps the settings',
      { pooler: 'transaction', sendSessionSettings: false },
    ],
    ['inlined after the settings, as behind a pooler', { pooler: 'transaction' }],
  ] as const)(
    'answer the same rows %s, and refuse a statement whose columns are not its own',
    async (_, options) => {
      const handle = await open({ poolSize: 1, ...options })

      const runStatement = runOn(handle)
      expect(await runStatement(PAIRS, ['x', '3'])).toEqual(expected)
      await expect(runStatement(pair(PAIRS.text.replace(' AS b ', ' AS c ')), ['x', '3'])).rejects.toThrow(
        /answered the columns a, c, not a, b/,
      )
      // The connection was fine all along: the next run on it answers.
      expect(await runStatement(PAIRS, ['y', '1'])).toEqual([{ a: 1, b: 'y1' }])
    },
  )

  it("fail with the server's error, and with what the decoder threw, and leave the connection usable", async () => {
    const handle = await open({ poolSize: 1 })
    const { pool, evictions } = handle
    const runStatement = runOn(handle)
    await expect(runStatement(pair('SELECT 1 / $1::int AS a, NULL AS b'), ['0'])).rejects.toMatchObject({
      code: '22012',
    })
    const refusing: Statement<never> = {
      ...PAIRS,
      decode: () => {
        throw new Error('not a pair')
      },
    }
    await expect(runStatement(refusing, ['x', '3'])).rejects.toThrow('not a pair')
    expect(await runStatement(PAIRS, ['x', '3'])).toEqual(expected)
    expect(pool.idleCount).toBe(1)
    expect(evictions()).toBe(0)
  })

  it('run the repository on the same connection as other queries, named or not', async () => {
    const handle = await open({ poolSize: 1 })
    const { db } = handle
    const pets = createPostgresPetRepository(handle)
    const added = await run(pets.add(aPetData()))
    await sql`SELECT ${1}::int`.execute(db)
    expect(await run(pets.list({ after: 0 as never, limit: 5 }))).toEqual([added])
    expect(await run(pets.findById(added.id))).toEqual({ _tag: 'Some', value: added })
  })
})
