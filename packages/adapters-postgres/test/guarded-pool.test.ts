import type { PageCursor } from '@pets/domain'
import { run, runLeft } from '@pets/domain/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createPostgresDatabase, createPostgresPetRepository, tryStore } from '../src/index.js'
import type { Statement } from '../src/runner/statement.js'
import { startSilentProxy } from './support/silent-proxy.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const everything = { limit: 100, after: 0 as PageCursor }

describe('dead connections leave the pool', () => {
  const { open, track } = useFreshDatabases()

  it('fails fast on a silent path, and serves the first query after the path returns without waiting on a dead connection', async () => {
    const fresh = await open()
    const target = new URL(fresh.url)
    const proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) })
    track(proxy)
    // The client gives up 250 ms after the statement timeout: 2.25 s.
    const behind = createPostgresDatabase({
      connectionString: proxy.through(fresh.url),
      statementTimeoutMs: 2000,
      connectionTimeoutMs: 1000,
      poolSize: 4,
    })
    track(behind)
    const repo = createPostgresPetRepository(behind)
    // Four connections in the pool, each answered: four queries at once, each held a moment.
    const pid = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`
    const before = await Promise.all(
      [1, 2, 3, 4].map(async () => (await pid.execute(behind.db)).rows[0]!.pid),
    )
    expect(new Set(before).size).toBe(4)

    proxy.silence()
    const silentAt = performance.now()
    expect(await runLeft(repo.list(everything))).toMatchObject({
      _tag: 'StoreUnavailable',
      cause: { name: 'QueryReadTimeoutError' },
    })
    expect(performance.now() - silentAt).toBeLessThan(4500)

    proxy.restore()
    const backAt = performance.now()
    expect(await run(repo.list(everything))).toEqual([])
    // Under the 2.25 s a dead connection would have cost: the three idle ones, unanswered
    // since the failed query was sent, were destroyed at checkout instead of being used.
    expect(performance.now() - backAt).toBeLessThan(2000)
    expect(behind.evictions()).toBe(4)
    const after = (await pid.execute(behind.db)).rows[0]!.pid
    expect(before).not.toContain(after)
    expect(behind.pool.totalCount).toBe(1)
  })

  it('runs a statement on the guarded pool directly, and gives the connection back after a failure too', async () => {
    const { runner, pool, evictions } = await open({ poolSize: 1 })
    const runPrepared = runner.runPrepared
    const runStatement = (text: string, value: string) =>
      new Promise<Array<number>>((resolve, reject) => {
        const statement: Statement<number> = { text, columns: ['n'], decode: ([n]) => Number(n) }
        runPrepared(statement, [value], (error, rows) =>
          error === undefined ? resolve(rows) : reject(error),
        )
      })
    await expect(runStatement('SELECT 1 / $1::int AS n', '0')).rejects.toMatchObject({ code: '22012' })
    // With the only connection still out, this would wait and time out.
    expect(await runStatement('SELECT $1::int AS n', '1')).toEqual([1])
    expect(pool.idleCount).toBe(1)
    // A division by zero is the server's answer: the connection stays.
    expect(evictions()).toBe(0)
  })

  it('destroys a connection whose query timed out on the client, and never hands it out again', async () => {
    // No server-side statement timeout: only the client's ends the wait.
    const { db, pool, evictions } = await open({ statementTimeoutMs: 200, sendSessionSettings: false })
    const first = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid
    const slow = await tryStore(() => sql`SELECT pg_sleep(3)`.execute(db))()
    expect(slow).toMatchObject({ _tag: 'Left', left: { cause: { name: 'QueryReadTimeoutError' } } })
    expect(evictions()).toBe(1)
    expect(pool.totalCount).toBe(0)
    const next = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid
    expect(next).not.toBe(first)
  })

  it('keeps a connection whose statement the server cancelled: it answered, so it is alive', async () => {
    const { db, evictions } = await open({ statementTimeoutMs: 200 })
    const first = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid
    const slow = await tryStore(() => sql`SELECT pg_sleep(3)`.execute(db))()
    expect(slow).toMatchObject({ _tag: 'Left', left: { cause: { code: '57014' } } })
    const next = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid
    expect(next).toBe(first)
    expect(evictions()).toBe(0)
  })

  it('answers StoreUnavailable within the connect timeout when a new connection goes unanswered', async () => {
    const fresh = await open()
    const target = new URL(fresh.url)
    const proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) })
    track(proxy)
    proxy.silence()
    const nowhere = createPostgresDatabase({
      connectionString: proxy.through(fresh.url),
      connectionTimeoutMs: 300,
    })
    track(nowhere)
    const startedAt = performance.now()
    expect(await runLeft(createPostgresPetRepository(nowhere).list(everything))).toMatchObject({
      _tag: 'StoreUnavailable',
    })
    // The 300 ms connect timeout, not an endless wait for the silent server.
    expect(performance.now() - startedAt).toBeLessThan(5000)
  })
})
