import { MIGRATION_LOCK } from '@pets/adapters-postgres'
import { freePort, openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { spawn, type StdioOptions } from 'node:child_process'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { LOG_FLUSH_INTERVAL_MS } from '../src/log/logger.js'
import { NODE_FLAGS } from '../src/node-flags.js'
import { logLinesOf } from './support/log-lines.js'
import { listening, sessionsBeside, waitingForLock } from './support/start-probes.js'
import { undrainedPipe } from './support/undrained-pipe.js'
import { MAIN } from './support/test-service.js'

// The built bin as a process that may never listen: its output, and its exit.
// `stdout`: a file descriptor to write to instead of a pipe this process reads; `args`: a command.
const spawnService = (env: Record<string, string>, stdout?: number, args: ReadonlyArray<string> = []) => {
  const stdio: StdioOptions = ['ignore', stdout ?? 'pipe', 'pipe']
  const child = spawn(process.execPath, [...NODE_FLAGS, MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio,
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  )
  return { child, exited, output: () => output }
}

// The last lines of a stop: what the operator reads first when a service ended.
describe('the lines a stop ends with', () => {
  const cleanups: Array<() => Promise<unknown>> = []
  const fresh = async () => {
    const database: FreshDatabase = await openFreshDatabase(inject('postgres'), { empty: true })
    cleanups.push(() => database.close())
    return database
  }
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  for (const webConcurrency of ['1', '2'])
    it(`SIGTERM while waiting for another instance's migrations (WEB_CONCURRENCY=${webConcurrency}): one line, exit 0`, async () => {
      const database = await fresh()
      // Another instance migrating: it holds the migration lock.
      const other = await database.pool.connect()
      cleanups.push(async () => other.release(true))
      await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
      const svc = spawnService({
        DATABASE_URL: database.url,
        API_KEYS: 'k1',
        WEB_CONCURRENCY: webConcurrency,
      })
      cleanups.push(async () => svc.child.kill('SIGKILL'))
      await expect
        .poll(svc.output, { timeout: 20_000 })
        .toContain('migrations: waiting for another instance that is migrating')
      svc.child.kill('SIGTERM')
      expect(await svc.exited).toEqual({ code: 0, signal: null })
      expect(logLinesOf(svc.output()).at(-1)).toMatchObject({
        level: 30,
        msg: 'stopped before it was ready',
        outcome: 'not-ready',
        reason: 'SIGTERM',
        during: 'preparing the database',
        exitCode: 0,
      })
      // Nothing migrated: the lock was never had.
      const tables = await other.query("SELECT 1 FROM pg_tables WHERE tablename = 'pets'")
      expect(tables.rowCount).toBe(0)
    })

  for (const [signal, status] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)
    it(`${signal} to "migrate" while it waits for another instance's migrations: one line, exit ${status}, the lock never taken`, async () => {
      const database = await fresh()
      const other = await database.pool.connect()
      cleanups.push(async () => other.release(true))
      await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
      const migrate = spawnService({ DATABASE_URL: database.url }, undefined, ['migrate'])
      cleanups.push(async () => migrate.child.kill('SIGKILL'))
      await expect
        .poll(migrate.output, { timeout: 20_000 })
        .toContain('migrations: waiting for another instance that is migrating')
      migrate.child.kill(signal)
      expect(await migrate.exited).toEqual({ code: status, signal: null })
      expect(migrate.output()).toBe(
        'migrations: waiting for another instance that is migrating\n' +
          `animal-store: migrate: stopped by ${signal} while waiting for another instance that is migrating; ` +
          'nothing was migrated\n',
      )
      // Free now, and nobody took it: nothing migrated.
      await other.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
      expect((await other.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])).rows).toEqual(
        [{ locked: true }],
      )
      const tables = await other.query("SELECT 1 FROM pg_tables WHERE tablename = 'pets'")
      expect(tables.rowCount).toBe(0)
    })

  for (const webConcurrency of ['1', '2'])
    it(`SIGTERM while waiting for the migration lock, on a stdout that does not drain (WEB_CONCURRENCY=${webConcurrency}): the start goes no further`, async () => {
      const database = await fresh()
      const other = await database.pool.connect()
      cleanups.push(async () => other.release(true))
      await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
      // A log reader that has stopped reading: a FIFO filled to the brim before the service writes a line.
      const stdout = undrainedPipe()
      cleanups.push(async () => stdout.close())
      const port = await freePort()
      const svc = spawnService(
        { DATABASE_URL: database.url, API_KEYS: 'k1', PORT: String(port), WEB_CONCURRENCY: webConcurrency },
        stdout.writer,
      )
      cleanups.push(async () => svc.child.kill('SIGKILL'))
      stdout.handedOver()
      // Its log is stuck: the database shows it trying the lock.
      await expect.poll(() => waitingForLock(other), { timeout: 20_000 }).toBe(true)
      // Its log's timer (LOG_FLUSH_INTERVAL_MS) has begun a write that cannot end: the exit waits for it while
      // the event loop runs (a stop with no write under way would write synchronously, and hang there).
      await new Promise((resolve) => setTimeout(resolve, 10 * LOG_FLUSH_INTERVAL_MS))
      svc.child.kill('SIGTERM')
      // Its 'stopped before it was ready' waits for the log. It stops waiting for the lock, and closes its session.
      await expect.poll(() => sessionsBeside(other), { timeout: 20_000 }).toBe(0)
      await other.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
      // Nothing after the stop goes on, though the exit still waits for the log.
      for (let i = 0; i < 10; i++) {
        expect(await listening(port), 'listening after a stop asked before it was ready').toBe(false)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      // Nothing migrated: the lock was never had.
      expect((await other.query("SELECT 1 FROM pg_tables WHERE tablename = 'pets'")).rowCount).toBe(0)
      const output = stdout.drain()
      expect(await svc.exited).toEqual({ code: 0, signal: null })
      const lines = logLinesOf(await output)
      expect(lines.map((line) => line.msg)).not.toContain('listening')
      expect(lines.at(-1)).toMatchObject({
        msg: 'stopped before it was ready',
        reason: 'SIGTERM',
        during: 'preparing the database',
        exitCode: 0,
      })
    })

  it('SIGTERM to the primary of WEB_CONCURRENCY while its workers load: exit 0, and stopped clean', async () => {
    const database = await openFreshDatabase(inject('postgres'))
    cleanups.push(() => database.close())
    const svc = spawnService({ DATABASE_URL: database.url, API_KEYS: 'k1', WEB_CONCURRENCY: '2' })
    cleanups.push(async () => svc.child.kill('SIGKILL'))
    await expect.poll(svc.output, { timeout: 20_000 }).toContain('"msg":"starting workers"')
    // Relayed at once to workers that node is still loading (or that are preparing: either way, clean).
    svc.child.kill('SIGTERM')
    expect(await svc.exited).toEqual({ code: 0, signal: null })
    const stopped = logLinesOf(svc.output()).filter((line) => line.pid === svc.child.pid)
    expect(stopped.at(-1)).toMatchObject({ level: 30, msg: 'stopped', outcome: 'clean', exitCode: 0 })
  })
})
