import { findTestServer, type TestServer } from '@pets/adapters-postgres/testing'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anchorsOf } from '../src/markdown.js'
import { smokeOptions } from '../src/options.js'
import { startRun } from '../src/run-header.js'
import { runSuite, type SuiteReport } from '../src/run-suite.js'
import { scenariosFor, STORED_KEY_SCENARIO } from '../src/scenarios.js'
import { renderSuite, SUITE_ANCHORS } from '../src/suite-report.js'

// The smoke run of `pnpm bench --smoke`, so that the benchmark cannot rot: every step of the
// targets runs, with 0.25 s of load per run. Its figures are not checked against any target: CI
// machines vary.
describe('pnpm bench --smoke', () => {
  let server: TestServer
  let report: SuiteReport
  const lines: Array<string> = []

  beforeAll(async () => {
    server = await findTestServer()
    const options = smokeOptions(process.env)
    report = await runSuite(
      {
        ...options,
        adminUrl: server.url,
        databaseName: `pets_bench_smoke_${randomBytes(4).toString('hex')}`,
      },
      startRun('pnpm bench --smoke'),
      (line) => lines.push(line),
    )
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('drives the service and every baseline with every scenario it answers, in memory and on PostgreSQL', () => {
    expect(report.modes.map((m) => [m.mode, m.servers.map((s) => s.name)])).toEqual([
      ['memory', ['service', 'node:http', 'fastify', 'koa']],
      ['postgres', ['service', 'node:http+pg', 'fastify+pg', 'koa+pg', 'platformatic-db']],
    ])
    const keys = scenariosFor(1).map((s) => s.key)
    expect(report.modes.map((m) => m.scenarios.map((s) => s.scenario.key))).toEqual([
      keys,
      [...keys, STORED_KEY_SCENARIO.key],
    ])
    for (const mode of report.modes)
      for (const { scenario, contestants, rounds } of mode.scenarios) {
        const platformatic = ['list-20', 'list-100-status', 'create'].includes(scenario.key)
        const expected =
          scenario.key === STORED_KEY_SCENARIO.key
            ? ['service, stored key', 'service']
            : mode.servers.map((s) => s.name).filter((name) => platformatic || name !== 'platformatic-db')
        expect(contestants).toEqual(expected)
        for (const round of rounds)
          for (const name of contestants) {
            const sample = round[name]!
            expect(sample.requests).toBeGreaterThan(0)
            expect(sample.requestsPerSecond).toBeGreaterThan(0)
            expect(sample.p99Ms).toBeGreaterThanOrEqual(sample.p50Ms)
            expect(sample.peakRssBytes).toBeGreaterThan(0)
          }
      }
  })

  it('measures cold start and idle memory of each server, in both modes', () => {
    expect(report.coldStarts.map((c) => `${c.mode} ${c.name}`)).toEqual(
      report.modes.flatMap((m) => m.servers.map((s) => `${m.mode} ${s.name}`)),
    )
    for (const cold of report.coldStarts) {
      expect(cold.medianMs).toBeGreaterThan(0)
      expect(cold.idleRssBytes).toBeGreaterThan(0)
    }
  })

  it('measures inserts per second with one and with two service instances on one database, and their lock waits', () => {
    const rounds = report.write?.rounds ?? []
    expect(rounds).toHaveLength(report.options.rounds)
    for (const { one, two } of rounds) {
      expect(one.requestsPerSecond).toBeGreaterThan(0)
      expect(two.map((s) => s.requestsPerSecond > 0)).toEqual([true, true])
    }
    const waits = report.write!.waits
    expect(waits.two.samples).toBeGreaterThan(0)
    // Each busy sample is one connection in one poll: at least as many as polls that saw one busy.
    expect(waits.two.busy).toBeGreaterThanOrEqual(Math.max(0, ...Object.values(waits.two.seen)))
    expect(Object.values(waits.two.busyIn).reduce((a, b) => a + b, 0)).toBe(waits.two.busy)
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

  it('writes RESULTS.md whole: the commit, the tree, the machine, every target and every scenario', () => {
    const markdown = renderSuite(report)
    expect(markdown).toMatch(/^# Benchmark results: the targets \(smoke run/)
    expect(markdown).toMatch(/\| commit \| `([0-9a-f]{40}|unknown.*)` \|/)
    expect(markdown).toMatch(/\| working tree \| (clean|\*\*not clean\*\*)/)
    expect(markdown).toContain(`${report.run.machine.cpus} cores (nproc)`)
    expect(markdown).toContain(report.run.machine.node)
    for (const target of report.targets) expect(markdown).toContain(target.what)
    expect(markdown).not.toContain('<!-- notes')
    const targets = report.targets.map((t) => `${t.what}: ${t.goal}`)
    for (const target of [
      'memory, list 20: requests/s: ≥ 1.0× koa',
      'memory, create: requests/s: ≥ 0.7× fastify',
      'postgres, list 100, status=sold: requests/s: ≥ 1.0× platformatic-db',
      'postgres, create: requests/s: ≥ 0.8× node:http+pg',
      'postgres, list 20, stored key: requests/s: ≥ 0.9× service',
      'postgres, get by id: p99: ≤ 1.5× koa+pg',
      'memory, get by id: p99 of service: ≤ 50 ms',
      'memory, service: cold start (median): ≤ 300 ms',
      'postgres, service: cold start (median): ≤ 400 ms',
      'postgres, service: idle RSS: ≤ 70 MiB',
      'postgres, service: peak RSS under load: ≤ 120 MiB',
      'postgres, create on two instances (2 × 4 connections): inserts/s: ≥ 1.0× one instance (8 connections)',
      'postgres, create on two instances (2 × 4 connections): busy samples waiting on a Lock: < 10 %',
      'postgres, list 20: p50 latency at 10,000 pets: ≤ 1.5× at 1,000',
      'memory, list 20, tracing on, every request sampled: requests/s: ≥ 0.85× tracing off',
      'postgres, list 20, tracing on, 10 % sampled: requests/s: ≥ 0.95× tracing off',
    ])
      expect(targets).toContain(target)
  })

  it('has every anchor that code and documents point to (bench/RESULTS.md#…)', () => {
    const anchors = anchorsOf(renderSuite(report))
    for (const anchor of SUITE_ANCHORS) expect(anchors).toContain(anchor)
    expect(new Set(anchors).size).toBe(anchors.length)
    expect(SUITE_ANCHORS).toEqual(
      expect.arrayContaining([
        'targets',
        'in-memory-list-20',
        'postgresql-create',
        'postgresql-list-20-stored-key',
        'cold-start-and-idle-memory',
        'two-instances-writing',
        'growth',
        'tracing-what-it-costs',
      ]),
    )
  })
})
