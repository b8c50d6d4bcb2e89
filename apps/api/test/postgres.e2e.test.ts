import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
// Every answer is checked against the OpenAPI document the process serves.
import { checkedFetch as fetch } from './support/checked-fetch.js'
import { MAIN, startTestService } from './support/test-service.js'
import { startTcpProxy } from './support/tcp-proxy.js'
import { logLinesOf } from './support/log-lines.js'
import { freshDatabases } from './support/fresh-databases.js'

const exec = promisify(execFile)
const cli = (databaseUrl: string, ...args: Array<string>) =>
  exec(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
  })

const post = (url: string, key: string, body: unknown) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
const list = (url: string, key: string) =>
  fetch(`${url}/v1/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })

// The built service as a real process on a real PostgreSQL.
describe('the built service on PostgreSQL', () => {
  const fresh = freshDatabases()

  it('creates its schema on an empty database, and loses no pet across a restart', async () => {
    const { url: databaseUrl } = await fresh({ empty: true })
    const first = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: databaseUrl, API_KEYS: 'k1' },
    })
    expect(first.output()).toContain('migrations: ran')
    const created = await post(first.url, 'k1', { name: 'Rex', categoryId: 3, status: 'sold' })
    expect(created.status).toBe(201)
    const pet = (await created.json()) as { id: number }
    expect(first.output()).not.toContain('in memory')
    expect(await first.stop()).toBe(0)

    const second = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: databaseUrl, API_KEYS: 'k1' },
    })
    expect(second.output()).toContain('migrations: up to date')
    expect(await (await list(second.url, 'k1')).json()).toEqual([pet])
    const next = (await (await post(second.url, 'k1', { name: 'Tom', categoryId: 3 })).json()) as {
      id: number
    }
    expect(next.id).toBeGreaterThan(pet.id)
    expect(await second.stop()).toBe(0)
  })

  it('refuses a database that does not keep UTF-8: migrate, the key commands and the start, exit 2', async () => {
    const database = await fresh({ encoding: 'SQL_ASCII' })
    const why = `the database "${database.name}" keeps text as SQL_ASCII, and the service needs UTF8`
    for (const args of [['migrate'], ['keys', 'list'], []])
      await expect(
        exec(process.execPath, [MAIN, ...args], {
          env: {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: database.url,
            API_KEYS: 'k1',
            SHUTDOWN_DELAY_MS: '0',
          },
        }),
      ).rejects.toMatchObject({
        code: 2,
        // The service's log has its fatal line, as every refused start: a command's stdout stays empty.
        stdout: args.length === 0 ? expect.stringContaining('"msg":"stopped on an error"') : '',
        // A command's line names it: `animal-store: keys list: the database …`.
        stderr: expect.stringContaining(args.length === 0 ? why : `animal-store: ${args.join(' ')}: ${why}`),
      })
    const notMigrated = exec(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: database.url,
        API_KEYS: 'k1',
        MIGRATE_ON_START: 'false',
      },
    })
    await expect(notMigrated).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(why) })
  })

  it('refuses to start in production without any API key, and starts with a stored one', async () => {
    const { url: databaseUrl } = await fresh()
    // No delay before the listener closes: nothing balances load in front of this test.
    const env = { DATABASE_URL: databaseUrl, APP_ENV: 'production', SHUTDOWN_DELAY_MS: '0' }
    await expect(
      exec(process.execPath, [MAIN], { env: { ...env, PATH: process.env.PATH ?? '' } }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('APP_ENV=production needs at least one API key'),
    })
    await cli(databaseUrl, 'keys', 'create', '--name', 'ops')
    const svc = await startTestService({ mode: 'child', env })
    expect(await svc.stop()).toBe(0)
  })

  it('with MIGRATE_ON_START=false, checks the schema once a database unreachable at start answers, and stops (exit 2) if it is behind, saying why', async () => {
    const database = await fresh({ empty: true })
    const target = new URL(database.url)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const viaProxy = new URL(database.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    proxy.cut()
    const svc = await startTestService({
      mode: 'child',
      env: {
        DATABASE_URL: viaProxy.toString(),
        API_KEYS: 'k1',
        MIGRATE_ON_START: 'false',
        DATABASE_CONNECT_TIMEOUT_MS: '300',
        SHUTDOWN_DELAY_MS: '0',
      },
    })
    try {
      expect(svc.output()).toContain('its schema was not checked; it will be once it answers')
      // Meanwhile: 503, as for any outage.
      // A call counted for its key: at shutdown, its count meets a database without the usage table.
      expect((await list(svc.url, 'k1')).status).toBe(503)
      proxy.restore()
      const started = Date.now()
      expect(await svc.exited).toBe(2)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(svc.output()).toMatch(
        /animal-store: the database's schema is not up to date \(MIGRATE_ON_START=false; not run: 2026-11-22-0001-create-pets, /,
      )
      // The last line says why it stopped, at error; the usage counts' line is one warn line, no stack.
      const lines = logLinesOf(svc.output())
      expect(lines.at(-1)).toMatchObject({
        level: 50,
        msg: 'stopped',
        outcome: 'failed',
        reason: 'the schema check failed',
        exitCode: 2,
      })
      const usage = lines.filter((line) => line.msg.startsWith('usage counts'))
      expect(usage.map((line) => line.level)).not.toContain(50)
      expect(usage.filter((line) => line.err !== undefined)).toEqual([])
      expect(usage.map((line) => line.msg)).toContain(
        'usage counts not written: their table does not exist (the schema is behind this version: run ' +
          '"animal-store migrate"); kept for the next try',
      )
    } finally {
      await svc.stop()
      await proxy.close()
    }
  })

  it('answers 503 with Retry-After while the database is gone or hangs, and recovers by itself', async () => {
    const database = await fresh()
    const target = new URL(database.url)
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const viaProxy = new URL(database.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const svc = await startTestService({
      mode: 'child',
      env: {
        DATABASE_URL: viaProxy.toString(),
        API_KEYS: 'k1',
        // DATABASE_CONNECT_TIMEOUT_MS as by default (1 s): see outage.e2e.test.ts.
        DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      },
    })
    try {
      const before = (await (await post(svc.url, 'k1', { name: 'before', categoryId: 1 })).json()) as {
        id: number
      }

      for (const outage of [proxy.cut, proxy.stall]) {
        outage()
        const started = Date.now()
        const during = await post(svc.url, 'k1', { name: 'during', categoryId: 1 })
        expect(during.status).toBe(503)
        expect(during.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(await during.json()).toMatchObject({ code: 'unavailable', status: 503 })
        expect(Date.now() - started).toBeLessThan(2_000)
        expect((await list(svc.url, 'k1')).status).toBe(503)

        proxy.restore()
        const back = Date.now()
        let status = 0
        while (status !== 200 && Date.now() - back < 2_000) status = (await list(svc.url, 'k1')).status
        expect(status).toBe(200)
      }
      const after = (await (await post(svc.url, 'k1', { name: 'after', categoryId: 1 })).json()) as {
        id: number
      }
      const names = ((await (await list(svc.url, 'k1')).json()) as Array<{ name: string }>).map((p) => p.name)
      expect(names).toEqual(['before', 'after'])
      expect(after.id).toBeGreaterThan(before.id)
      expect(svc.output()).not.toContain('"status":500')
    } finally {
      await svc.stop()
      await proxy.close()
    }
  })
})
