import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { submitStatement, type Statement } from '../src/runner/statement.js'

// Guards of what statement.ts, guarded-pool.ts and pooler.ts assume of pg and pg-pool beyond their
// documented APIs (ARCHITECTURE.md, "Made by hand, on purpose"); statement.test.ts holds the behaviour.

const require = createRequire(import.meta.url)
const PG = `pg ${(require('pg/package.json') as { version: string }).version}`
// pg-pool is pg's, not ours: found from where pg is (its exports map has no package.json, read beside it).
const poolMain = createRequire(require.resolve('pg')).resolve('pg-pool')
const PG_POOL = `pg-pool ${(JSON.parse(readFileSync(join(dirname(poolMain), 'package.json'), 'utf8')) as { version: string }).version}`
const STATEMENT =
  'statement.ts submits to it — re-measure the statement path against pg.Query ' +
  '(ARCHITECTURE.md, "Made by hand, on purpose", row "statement path") or go back to pg.Query'

type Connection = Record<string, unknown> & {
  readonly stream: Record<string, unknown>
  readonly parsedStatements: Record<string, unknown>
  readonly submittedNamedStatements: Record<string, unknown>
}
const connectionOf = (client: pg.Client) => (client as unknown as { connection: Connection }).connection

const ONE: Statement<number> = {
  text: 'SELECT $1::int + 1 AS n',
  columns: ['n'],
  decode: (f) => Number(f[0]),
}
const run = (client: pg.Client, name: string | undefined, value: string) =>
  new Promise<ReadonlyArray<number>>((resolve, reject) =>
    submitStatement(client, ONE, [value], name === undefined ? {} : { name }, (error, rows) =>
      error === undefined ? resolve(rows) : reject(error),
    ),
  )

describe(`pg's private connection, written by statement.ts (${PG})`, () => {
  let client: pg.Client
  beforeAll(async () => {
    client = new pg.Client({ connectionString: inject('postgres').url })
    await client.connect()
  })
  afterAll(() => client.end())

  it("has the protocol's messages, the statement records and a corkable socket", () => {
    const connection = connectionOf(client)
    for (const method of ['parse', 'bind', 'describe', 'execute', 'sync', 'query'])
      expect(
        typeof connection[method],
        `${PG}: client.connection.${method} is no longer a function; ${STATEMENT}`,
      ).toBe('function')
    for (const record of ['parsedStatements', 'submittedNamedStatements'])
      expect(
        Object.prototype.toString.call(connection[record]),
        `${PG}: client.connection.${record} is no longer an object of names; ${STATEMENT}`,
      ).toBe('[object Object]')
    for (const method of ['cork', 'uncork', 'destroy'])
      expect(
        typeof connection.stream[method],
        `${PG}: client.connection.stream.${method} is no longer a function; statement.ts corks it, ` +
          "broken-connections.ts's destroySocket destroys it",
      ).toBe('function')
  })

  it('hands a submittable its connection and records a named statement once the server parsed it', async () => {
    const connection = connectionOf(client)
    let given: unknown
    const noop = () => {}
    await new Promise<void>((resolve, reject) => {
      const submittable = {
        submit: (c: Connection) => void ((given = c), (c.query as (text: string) => void)('SELECT 1')),
        handleRowDescription: noop,
        handleDataRow: noop,
        handleCommandComplete: noop,
        handleError: reject,
        handleReadyForQuery: () => resolve(),
      }
      client.query(submittable as unknown as pg.Submittable)
    })
    expect(
      given,
      `${PG}: client.query(submittable) no longer calls submit(client.connection); ${STATEMENT}`,
    ).toBe(connection)

    expect(await run(client, 'guard_one', '1')).toEqual([2])
    expect(
      connection.parsedStatements['guard_one'],
      `${PG}: parsedStatements no longer records a parsed named statement by its text; ${STATEMENT}`,
    ).toBe(ONE.text)
    expect(
      connection.submittedNamedStatements['guard_one'],
      `${PG}: submittedNamedStatements keeps a statement after it parsed; ${STATEMENT}`,
    ).toBeUndefined()
    expect(await run(client, 'guard_one', '2')).toEqual([3])
  })

  it("reads a Query's name when it is submitted, as pooler.ts sets it", async () => {
    const query = new pg.Query('SELECT 1 AS one', [])
    ;(query as unknown as { name: string }).name = 'guard_named_query'
    await new Promise((resolve, reject) => {
      query.on('end', resolve)
      query.on('error', reject)
      client.query(query)
    })
    expect(
      connectionOf(client).parsedStatements['guard_named_query'],
      `${PG}: a name set on a pg.Query after it is made is no longer used; pooler.ts's sendNamed sets it so`,
    ).toBe('SELECT 1 AS one')
  })

  it("keeps the server's backend key as processID", async () => {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    expect(
      (client as unknown as { processID?: unknown }).processID,
      `${PG}: client.processID is no longer the backend key; pooler.ts compares it to tell a pooler`,
    ).toBe(rows[0]?.pid)
  })
})

describe(`pg-pool's options, which pooler.ts changes once the pool is made (${PG_POOL})`, () => {
  it('makes each new client from pool.options as it is then, so that a refused `options` is dropped for the next', async () => {
    const configs: Array<pg.ClientConfig> = []
    class Recorded extends pg.Client {
      constructor(config: pg.ClientConfig = {}) {
        configs.push({ ...config })
        super(config)
      }
    }
    const pool = new pg.Pool({
      connectionString: inject('postgres').url,
      options: '-c statement_timeout=5000',
      Client: Recorded,
    })
    try {
      ;(await pool.connect()).release(true)
      pool.options.options = undefined
      ;(await pool.connect()).release(true)
    } finally {
      await pool.end()
    }
    expect(
      configs.map((config) => config.options),
      `${PG_POOL}: a new client is no longer made from pool.options as it is at that moment; pooler.ts's ` +
        "retryConnect drops the `options` a pooler refused (PgBouncer's 'unsupported startup parameter') there, " +
        'and every later connection would be refused again: drop it another way (a Client class of its own)',
    ).toEqual(['-c statement_timeout=5000', undefined])
  })
})
