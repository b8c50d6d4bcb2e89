import { MIGRATION_LOCK } from '@pets/adapters-postgres'
import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { spawn } from 'node:child_process'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { NODE_FLAGS } from '../src/node-flags.js'
import { logLinesOf } from './support/log-lines.js'
import { MAIN } from './support/test-service.js'

// The built bin as a process that may never listen: its output, and its exit.
const spawnService = (env: Record<string, string>) => {
  const child = spawn(process.execPath, [...NODE_FLAGS, MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
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
