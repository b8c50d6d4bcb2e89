import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
// Every answer is checked against the OpenAPI document the process serves.
import { checkedFetch as fetch } from './support/checked-fetch.js'
import { MAIN, startTestService } from './support/test-service.js'
import { freshDatabases } from './support/fresh-databases.js'

const exec = promisify(execFile)
const cli = (databaseUrl: string, ...args: Array<string>) =>
  exec(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
  })
const list = (url: string, key: string) =>
  fetch(`${url}/v1/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })

// `animal-store keys …` of the built bin, on a real PostgreSQL, and the service that reads the keys it stores.
describe('the key commands', () => {
  const fresh = freshDatabases()

  it('manages keys from the command line: printed once, listed without the key, revoked (refused from the next request once the command returns)', async () => {
    const { url: databaseUrl } = await fresh()
    const created = await cli(databaseUrl, 'keys', 'create', '--name', 'billing')
    const key = created.stdout.trim().split('\n').at(-1)!
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const svc = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: databaseUrl, API_KEYS: 'env-key' },
    })
    expect((await list(svc.url, key)).status).toBe(200)
    expect((await list(svc.url, 'env-key')).status).toBe(200)

    const listed = await cli(databaseUrl, 'keys', 'list')
    expect(listed.stdout).toMatch(/ID\s+NAME\s+CREATED\s+LAST USED\s+REVOKED/)
    expect(listed.stdout).toContain('billing')
    expect(listed.stdout).not.toContain(key)
    expect(listed.stderr).toBe('')

    const id = /^(\d+)\s+billing/m.exec(listed.stdout)![1]!
    // It returns once every instance listening for key changes has said it heard: the next request is refused.
    const revoked = await cli(databaseUrl, 'keys', 'revoke', id)
    expect(revoked.stdout).toMatch(
      new RegExp(
        `^Revoked key ${id} \\(billing\\); refused by every instance: the 1 listening for key changes heard it within \\d+ ms\\.\n$`,
      ),
    )
    expect(revoked.stderr).toBe('')
    expect((await list(svc.url, key)).status).toBe(401)
    expect((await list(svc.url, 'env-key')).status).toBe(200)
    expect(await svc.stop()).toBe(0)
    expect(svc.output()).not.toContain(key)

    // Revoking again fails no script: the key is refused either way. An id no key has is an error.
    expect((await cli(databaseUrl, 'keys', 'revoke', id)).stdout).toBe(
      `Key ${id} (billing) was already revoked; it is refused.\n`,
    )
    await expect(cli(databaseUrl, 'keys', 'revoke', '999999')).rejects.toMatchObject({
      code: 2,
      stderr: 'animal-store: keys revoke: no key has id 999999 ("animal-store keys list" shows the keys)\n',
    })
    await expect(cli(databaseUrl, 'keys', 'create')).rejects.toMatchObject({ code: 2 })
  })

  it('waits for the instances whose URLs name their sessions too (application_name in DATABASE_URL or DATABASE_DIRECT_URL)', async () => {
    const { url: databaseUrl } = await fresh()
    const named = (value: string) => {
      const u = new URL(databaseUrl)
      u.searchParams.set('application_name', value)
      return u.toString()
    }
    const created = await cli(databaseUrl, 'keys', 'create', '--name', 'named')
    const key = created.stdout.trim().split('\n').at(-1)!
    const [byUrl, byDirectUrl] = [
      await startTestService({ mode: 'child', env: { DATABASE_URL: named('ops-a'), API_KEYS: 'env-key' } }),
      await startTestService({
        mode: 'child',
        env: { DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: named('ops-b'), API_KEYS: 'env-key' },
      }),
    ]
    for (const svc of [byUrl, byDirectUrl]) expect((await list(svc.url, key)).status).toBe(200)
    const id = /^(\d+)\s+named/m.exec((await cli(databaseUrl, 'keys', 'list')).stdout)![1]!
    // The command's own URL may name its sessions as well.
    const revoked = await cli(named('ops-cli'), 'keys', 'revoke', id)
    expect(revoked.stdout).toMatch(
      new RegExp(
        `^Revoked key ${id} \\(named\\); refused by every instance: the 2 listening for key changes heard it within \\d+ ms\\.\n$`,
      ),
    )
    expect(revoked.stderr).toBe('')
    for (const svc of [byUrl, byDirectUrl]) expect((await list(svc.url, key)).status).toBe(401)
    expect(await byUrl.stop()).toBe(0)
    expect(await byDirectUrl.stop()).toBe(0)
  })

  it('says which instances did not answer within 5 s, and when no instance listens at all', async () => {
    const { url: databaseUrl } = await fresh()
    const issue = async (name: string) => {
      await cli(databaseUrl, 'keys', 'create', '--name', name)
      return /^(\d+)\s/m.exec((await cli(databaseUrl, 'keys', 'list')).stdout.split('\n').at(-2)!)![1]!
    }
    const [first, second] = [await issue('first'), await issue('second')]
    const env = { DATABASE_URL: databaseUrl, API_KEYS: 'env-key' }
    const [awake, stopped] = [
      await startTestService({ mode: 'child', env }),
      await startTestService({ mode: 'child', env }),
    ]
    // A stopped process reads nothing: its LISTEN connection never answers.
    stopped.child.kill('SIGSTOP')
    try {
      const started = performance.now()
      const revoked = await cli(databaseUrl, 'keys', 'revoke', first)
      expect(performance.now() - started).toBeGreaterThanOrEqual(5000)
      expect(revoked.stdout).toMatch(
        new RegExp(
          `^Revoked key ${first} \\(first\\); 1 of the 2 instances listening for key changes heard it within \\d+ ms\\.\n$`,
        ),
      )
      expect(revoked.stderr).toMatch(
        /^animal-store: keys revoke: no word within 5000 ms from the LISTEN connection with backend pid \d+ \(an instance of an earlier release, one stopped or too busy to answer/,
      )
    } finally {
      stopped.child.kill('SIGCONT')
    }
    expect(await awake.stop()).toBe(0)
    expect(await stopped.stop()).toBe(0)
    // Nobody listens: each instance that may run looks keys up in PostgreSQL.
    const alone = await cli(databaseUrl, 'keys', 'revoke', second)
    expect(alone.stdout).toBe(
      `Revoked key ${second} (second); no instance listens for key changes now, so each one running looks ` +
        'keys up in PostgreSQL and refuses it.\n',
    )
    expect(alone.stderr).toBe('')
  })

  it('checks the arguments of the key commands, and prints their help, without a database', async () => {
    const noDatabase = (...args: Array<string>) =>
      exec(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '' } })
    for (const help of [
      ['keys', '--help'],
      ['keys', 'create', '-h'],
      ['openapi', '--help'],
    ]) {
      const { stdout, stderr } = await noDatabase(...help)
      expect(stdout, help.join(' ')).toMatch(/^animal-store (keys|openapi) /)
      expect(stdout).not.toContain('from the next request on')
      expect(stderr).toBe('')
    }
    // The commands that have no help of their own print everyone's, and run nothing.
    for (const help of [
      ['serve', '--help'],
      ['migrate', '-h'],
    ]) {
      const { stdout, stderr } = await noDatabase(...help)
      expect(stdout, help.join(' ')).toMatch(/^Usage:\n/)
      expect(stderr).toBe('')
    }
    // A mistake is a usage error at once, not "works on PostgreSQL: set DATABASE_URL".
    for (const wrong of [
      ['keys'],
      ['keys', 'bogus'],
      ['keys', 'create', '--name', ''],
      ['keys', 'revoke', 'billing'],
      ['keys', 'revoke', '-1'],
      ['keys', 'revoke', '99999999999999999999'],
    ])
      await expect(noDatabase(...wrong), wrong.join(' ')).rejects.toMatchObject({
        code: 2,
        stderr: expect.not.stringContaining('DATABASE_URL'),
      })
    // `--out -` is standard output.
    const { stdout } = await noDatabase('openapi', '--out', '-')
    expect(JSON.parse(stdout)).toMatchObject({ openapi: '3.1.0' })
  })

  it('asks for the migrations when a key command meets a database without the schema', async () => {
    const { url: databaseUrl } = await fresh({ empty: true })
    await expect(cli(databaseUrl, 'keys', 'list')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('run "animal-store migrate" first'),
    })
    await cli(databaseUrl, 'migrate')
    // No key yet: standard output is the table's header alone, as scripts read it; the hint is on stderr.
    const listed = await cli(databaseUrl, 'keys', 'list')
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+CREATED\s+LAST USED\s+REVOKED\n$/)
    expect(listed.stderr).toBe(
      'animal-store: no keys stored yet (API_KEYS are not listed): create one with "animal-store keys create --name NAME"\n',
    )
    const usage = await cli(databaseUrl, 'keys', 'usage')
    expect(usage.stdout).toMatch(/^ID\s+NAME\s+LAST USED\s.*\n$/)
    expect(usage.stderr).toBe(
      'animal-store: no keys stored yet, and no key of API_KEYS has called: create one with "animal-store keys create --name NAME"\n',
    )
  })
})
