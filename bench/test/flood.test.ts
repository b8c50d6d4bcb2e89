import { findTestServer, type TestServer } from '@pets/adapters-postgres/testing'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smokeOptions } from '../src/options.js'
import { floodSection, runFlood, type FloodFigures } from '../src/run-flood.js'

// The flood of `pnpm bench --smoke`, so that it cannot rot: two windows of a second per variant.
// Its latencies are not checked: CI machines vary, and RESULTS.md is where they are read.
describe('pnpm bench --smoke, a flood of keys that are not valid', () => {
  let server: TestServer
  let figures: FloodFigures

  beforeAll(async () => {
    server = await findTestServer()
    figures = await runFlood(
      {
        ...smokeOptions(process.env),
        adminUrl: server.url,
        databaseName: `pets_bench_smoke_${randomBytes(4).toString('hex')}`,
      },
      () => {},
    )
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('floods the service as shipped and with the limit lifted, while the client with a key lists pets', () => {
    expect(figures.variants.map((v) => v.label)).toEqual(['as shipped', 'limit lifted'])
    for (const variant of figures.variants) {
      expect(variant.quietRequests).toBeGreaterThan(0)
      expect(variant.floodRequests).toBeGreaterThan(0)
      // Every answer to the client with a key was a 200, flood or not.
      expect(variant.clientFailures).toEqual({})
    }
    const [shipped, lifted] = figures.variants
    // As shipped, the flood's address is refused before any lookup once its burst is spent; with
    // the limit lifted, every random key is looked up and refused as unknown.
    expect(shipped!.floodStatuses['429'] ?? 0).toBeGreaterThan(0)
    expect(lifted!.floodStatuses['429'] ?? 0).toBe(0)
    expect(lifted!.floodStatuses['401'] ?? 0).toBeGreaterThan(0)
  })

  it('reports both variants in a section of RESULTS.md', () => {
    const section = floodSection(figures)
    expect(section).toMatch(/^## A flood of keys that are not valid \(PostgreSQL\)/)
    expect(section).toContain('| as shipped |')
    expect(section).toContain('| limit lifted |')
  })
})
