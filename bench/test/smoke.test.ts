import { findTestServer, type TestServer } from '@pets/adapters-postgres/testing'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smokeOptions } from '../src/options.js'
import { notesOf, renderReport } from '../src/report.js'
import { runBench, type BenchReport } from '../src/run-bench.js'
import { scenariosFor } from '../src/scenarios.js'

// The smoke run of `pnpm bench --smoke`, so that the benchmark cannot rot: every step runs, with
// a few hundred requests. Its figures are not checked against any target: CI machines vary.
describe('pnpm bench --smoke', () => {
  let server: TestServer
  let report: BenchReport
  const lines: Array<string> = []

  beforeAll(async () => {
    server = await findTestServer()
    const options = smokeOptions(process.env)
    report = await runBench(
      {
        ...options,
        adminUrl: server.url,
        databaseName: `pets_bench_smoke_${randomBytes(4).toString('hex')}`,
      },
      (line) => lines.push(line),
    )
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('drives the service and both baselines with every scenario, in memory and on PostgreSQL', () => {
    expect(report.modes.map((m) => [m.mode, m.servers.map((s) => s.name)])).toEqual([
      ['memory', ['service', 'node:http', 'fastify']],
      ['postgres', ['service', 'node:http+pg', 'fastify+pg']],
    ])
    for (const mode of report.modes) {
      expect(mode.scenarios.map((s) => s.scenario.key)).toEqual(scenariosFor(1).map((s) => s.key))
      for (const { rounds } of mode.scenarios)
        for (const round of rounds)
          for (const name of mode.servers.map((s) => s.name)) {
            const sample = round[name]!
            expect(sample.requests).toBe(report.options.load.requests)
            expect(sample.requestsPerSecond).toBeGreaterThan(0)
            expect(sample.p99Ms).toBeGreaterThanOrEqual(sample.p50Ms)
            expect(sample.peakRssBytes).toBeGreaterThan(0)
          }
    }
  })

  it('measures cold start and idle memory of each server', () => {
    expect(report.coldStarts.map((c) => c.name)).toEqual(['service', 'node:http', 'fastify'])
    for (const cold of report.coldStarts) {
      expect(cold.medianMs).toBeGreaterThan(0)
      expect(cold.idleRssBytes).toBeGreaterThan(0)
    }
  })

  it('measures list latency at each number of pets and shows plans that use the indexes', () => {
    const sizes = new Set(report.scale?.latencies.map((l) => l.pets))
    expect([...sizes]).toEqual([...report.options.scaleSizes])
    expect(report.scale?.plans).toHaveLength(4)
    for (const { plan } of report.scale?.plans ?? []) {
      expect(plan).toMatch(/Index (Only )?Scan using (pets_pkey|pets_status_id_idx)/)
      expect(plan).not.toMatch(/Seq Scan/)
    }
  })

  it('writes a report with the machine, every target and every scenario', () => {
    const markdown = renderReport(report, '')
    expect(markdown).toContain(`${report.machine.cpus} cores (nproc)`)
    expect(markdown).toContain(report.machine.node)
    for (const target of report.targets) expect(markdown).toContain(target.what)
    for (const scenario of scenariosFor(1)) expect(markdown).toContain(`### ${scenario.title}`)
    expect(report.targets.map((t) => t.what)).toContain('service: cold start (median)')
  })

  it('keeps the notes people wrote when the report is written again', () => {
    const notes = 'The p99 of create is in pino.\n\nSecond paragraph.'
    expect(notesOf(renderReport(report, notes))).toBe(notes)
  })
})
