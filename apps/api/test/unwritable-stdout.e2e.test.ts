import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { closeSync, openSync } from 'node:fs'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { runBin } from './support/run-bin.js'

// Every write to /dev/full fails with ENOSPC, as on a full disk.
const intoFullDisk = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const full = openSync('/dev/full', 'w')
  try {
    return await runBin(args, env, full)
  } finally {
    closeSync(full)
  }
}
const NO_SPACE = 'standard output cannot be written: no space left on device (ENOSPC)'

describe('a command whose standard output cannot be written', () => {
  const opened: Array<FreshDatabase> = []
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close()
  })
  const fresh = async () => {
    const database = await openFreshDatabase(inject('postgres'))
    opened.push(database)
    return database
  }
  const activeKeys = async (database: FreshDatabase) =>
    (await database.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE revoked_at IS NULL')).rows

  it('says so in one line on stderr naming the command, and exits 1', async () => {
    const database = await fresh()
    expect(await intoFullDisk(['openapi'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `animal-store: openapi: ${NO_SPACE}\n`,
    })
    expect(await intoFullDisk(['--help'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `animal-store: --help: ${NO_SPACE}\n`,
    })
    expect(await intoFullDisk(['keys', 'list'], { DATABASE_URL: database.url })).toEqual({
      code: 1,
      stdout: '',
      stderr: `animal-store: keys list: ${NO_SPACE}\n`,
    })
  })

  it('keys create revokes the key that nobody saw, and says so', async () => {
    const database = await fresh()
    const result = await intoFullDisk(['keys', 'create', '--name', 'unseen'], { DATABASE_URL: database.url })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(
        `^animal-store: keys create: ${NO_SPACE.replace(/[()]/g, '\\$&')}; key \\d+ \\(unseen\\) was revoked, since nobody saw it\\n$`,
      ),
    )
    expect(await activeKeys(database)).toEqual([])
  })

  it('a reader gone (EPIPE) is no failure of a command, but keys create revokes its key all the same', async () => {
    expect(await runBin(['openapi'], {}, 'closed')).toEqual({ code: 0, stdout: '', stderr: '' })
    const database = await fresh()
    const result = await runBin(
      ['keys', 'create', '--name', 'unread'],
      { DATABASE_URL: database.url },
      'closed',
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /^animal-store: keys create: standard output cannot be written: broken pipe \(EPIPE\); key \d+ \(unread\) was revoked, since nobody saw it\n$/,
    )
    expect(await activeKeys(database)).toEqual([])
  })

  it('keys create says how to revoke the key nobody saw when it cannot revoke it itself', async () => {
    const database = await fresh()
    // A role that may issue keys but not revoke them (no UPDATE): the revocation fails with 42501.
    const role = `${database.name}_no_revoke`
    await database.pool.query(`CREATE ROLE ${role} LOGIN`)
    try {
      await database.pool.query(`GRANT SELECT, INSERT ON api_keys TO ${role}`)
      await database.pool.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`)
      const url = new URL(database.url)
      url.username = role
      const result = await intoFullDisk(['keys', 'create', '--name', 'stuck'], { DATABASE_URL: url.href })
      expect(result.code).toBe(1)
      const id = (await activeKeys(database))[0]?.id
      expect(result.stderr).toBe(
        `animal-store: keys create: ${NO_SPACE}; key ${id} (stuck) is active and nobody saw it, and it could ` +
          `not be revoked (42501): run "animal-store keys revoke ${id}"\n`,
      )
    } finally {
      await database.pool.query(`DROP OWNED BY ${role}`)
      await database.pool.query(`DROP ROLE ${role}`)
    }
  })
})
