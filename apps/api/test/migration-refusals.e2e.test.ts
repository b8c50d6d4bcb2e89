import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { startChild } from './support/child-service.js'
import { usePgBouncer } from './support/pgbouncer.js'
import { logLinesOf } from './support/log-lines.js'
import { runBin, type BinRun } from './support/run-bin.js'

const NEWER =
  'Migrations did not run: the database was migrated by a newer release of the service (it ran ' +
  '2099-01-01-0010-future, which this release does not know). Run that release or a later one, or restore ' +
  'the database from a backup taken before it migrated.'
const NEEDS_SESSION = /^Migrations did not run: they hold session advisory locks, .*set DATABASE_DIRECT_URL/

// The refusal in one line on stderr, exit 2, as a schema behind is refused; a command's line names it
// (`animal-store: migrate: …`); the service also logs it at fatal, without a stack.
const expectRefused = (result: BinRun, reason: string | RegExp, served: boolean) => {
  expect(result.code, result.stdout + result.stderr).toBe(2)
  expect(result.stderr).toMatch(/^animal-store: [^\n]+\n$/)
  const prefix = served ? 'animal-store: ' : 'animal-store: migrate: '
  expect(result.stderr.slice(0, prefix.length)).toBe(prefix)
  const said = result.stderr.slice(prefix.length, -1)
  if (typeof reason === 'string') expect(said).toBe(reason)
  else expect(said).toMatch(reason)
  if (!served) return expect(result.stdout).toBe('')
  expect(logLinesOf(result.stdout).filter((line) => line.level === 60)).toEqual([
    expect.objectContaining({ msg: 'stopped on an error', reason: result.stderr.slice(14, -1) }),
  ])
  expect(result.stdout).not.toContain('stack')
}

describe('migrations that cannot run, from the built bin', () => {
  const opened: Array<FreshDatabase> = []
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close()
  })
  const fresh = async (empty: boolean) => {
    const database = await openFreshDatabase(inject('postgres'), { empty })
    opened.push(database)
    return database
  }
  const pgbouncer = usePgBouncer()
  const serveEnv = { API_KEYS: 'migration-refusals-e2e-key', PORT: '0', SHUTDOWN_DELAY_MS: '0' }

  it('a database that a newer release migrated: migrate refuses it, saying to run that release; a start runs beside it', async () => {
    const database = await fresh(false)
    await database.pool.query(
      "INSERT INTO kysely_migration (name, timestamp) VALUES ('2099-01-01-0010-future', now()::text)",
    )
    expectRefused(await runBin(['migrate'], { DATABASE_URL: database.url }), NEWER, false)
    // A rolling upgrade: an instance of the older release (re)started after the newer one migrated.
    const service = await startChild({ mode: 'child', env: { ...serveEnv, DATABASE_URL: database.url } })
    try {
      expect((await service.get('/v1/pets', serveEnv.API_KEYS)).status).toBe(200)
      expect(logLinesOf(service.output()).filter((line) => line.level === 40)).toEqual([
        expect.objectContaining({
          msg: expect.stringMatching(/^migrations: the database was migrated by a newer release/),
          migrations: ['2099-01-01-0010-future'],
        }),
      ])
    } finally {
      expect(await service.stop()).toBe(0)
    }
  })

  it('a database without the schema through PgBouncer alone: migrate and serve refuse it, asking for DATABASE_DIRECT_URL', async () => {
    const empty = await fresh(true)
    const pooled = (await pgbouncer()).through(empty.url)
    expectRefused(await runBin(['migrate'], { DATABASE_URL: pooled }), NEEDS_SESSION, false)
    expectRefused(await runBin([], { ...serveEnv, DATABASE_URL: pooled }), NEEDS_SESSION, true)
  })
})
