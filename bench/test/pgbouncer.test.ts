import { findTestServer, type TestServer } from '@pets/adapters-postgres/testing'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smokeOptions } from '../src/options.js'
import { pgBouncerSection, runPgBouncer, type PgBouncerFigures } from '../src/run-pgbouncer.js'

// The PgBouncer part of `pnpm bench --smoke`, so that it cannot rot: 0.5 s of load per run. It
// starts Debian's pgbouncer (the test fails, saying how to install it, without one).
describe('pnpm bench --smoke, through PgBouncer', () => {
  let server: TestServer
  let figures: PgBouncerFigures
  const lines: Array<string> = []

  beforeAll(async () => {
    server = await findTestServer()
    figures = await runPgBouncer(
      {
        ...smokeOptions(process.env),
        adminUrl: server.url,
        databaseName: `pets_bench_smoke_${randomBytes(4).toString('hex')}`,
      },
      [randomBytes(24).toString('base64url')],
      (line) => lines.push(line),
    )
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('drives every PostgreSQL scenario directly and through PgBouncer, and 4 processes × pool 10 through 10 server connections', () => {
    expect(figures.scenarios.map((s) => s.scenario.key)).toEqual([
      'list-20',
      'list-100-status',
      'create',
      'get',
    ])
    for (const { rounds } of figures.scenarios)
      for (const { direct, pooled } of rounds) {
        expect(direct.requests).toBeGreaterThan(0)
        expect(pooled.requests).toBeGreaterThan(0)
      }
    expect(figures.crowd.runs.map((r) => [r.scenario.key, r.samples.length])).toEqual([
      ['list-20', 4],
      ['create', 4],
    ])
    // PgBouncer never opened more server connections than it was told to hold.
    expect(figures.crowd.mostServerConnections).toBeGreaterThan(0)
    expect(figures.crowd.mostServerConnections).toBeLessThanOrEqual(figures.serverConnections)
    const section = pgBouncerSection(figures)
    expect(section).toContain('## PostgreSQL through PgBouncer (transaction mode)')
    expect(section).toContain('### 4 processes × pool 10 through 10 server connections')
  })
})
