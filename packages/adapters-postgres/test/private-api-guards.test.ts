import { createRequire } from 'node:module'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { submitStatement, type Statement } from '../src/runner/statement.js'

// Guards of what statement.ts, guarded-pool.ts and pooler.ts assume of pg beyond its documented
// API (ARCHITECTURE.md, "Made by hand, on purpose"); statement.test.ts holds the behaviour.

const PG = `pg ${(createRequire(import.meta.url)('pg/package.json') as { version: string }).version}`
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
