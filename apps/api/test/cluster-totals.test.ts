import fc from 'fast-check'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, Summary } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { clusterTotals, type MetricJson } from '../src/cluster/cluster-totals.js'

// A worker's answer, as the primary receives it: its registry as JSON, through IPC's serialization.
const answer = async (registry: Registry): Promise<ReadonlyArray<MetricJson>> =>
  JSON.parse(JSON.stringify(await registry.getMetricsAsJSON())) as ReadonlyArray<MetricJson>

// The sum of the values of `name` (or of its `_count`, `_bucket`… when `part` is given) on a page.
const read = async (registry: Registry, name: string, part = name): Promise<number | undefined> => {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)
  const values = (metric?.values ?? []) as ReadonlyArray<{ value: number; metricName?: string }>
  const of = values.filter((v) => (v.metricName ?? name) === part)
  return of.length === 0 ? undefined : of.reduce((sum, v) => sum + v.value, 0)
}

// A worker's registry: one metric of each kind.
// A worker's answer of one counter, c_total, at `value`.
const counterAnswer = (value: number): ReadonlyArray<MetricJson> => [
  { name: 'c_total', help: 'A count.', type: 'counter', aggregator: 'sum', values: [{ value, labels: {} }] },
]

const aWorker = () => {
  const registry = new Registry()
  const registers = [registry]
  return {
    registry,
    requests: new Counter({ name: 'c_total', help: 'A count.', labelNames: ['route'], registers }),
    took: new Histogram({ name: 'h_seconds', help: 'A time.', buckets: [0.1, 1], registers }),
    inUse: new Gauge({ name: 'g', help: 'A current value.', registers }),
    sizes: new Summary({ name: 's_bytes', help: 'A size.', percentiles: [0.5], registers }),
  }
}

describe("clusterTotals: the primary's sum of the workers' metrics", () => {
  it("keeps a dead worker's totals (counters, histograms' and summaries' counts and sums), not its gauges nor quantiles", async () => {
    const totals = clusterTotals()
    const [a, b] = [aWorker(), aWorker()]
    a.requests.inc({ route: '/v1/pets' }, 5)
    a.took.observe(0.5)
    a.inUse.set(7)
    a.sizes.observe(100)
    b.requests.inc({ route: '/v1/pets' }, 3)
    b.inUse.set(2)
    totals.collected(1, await answer(a.registry))
    totals.collected(2, await answer(b.registry))
    expect(await read(totals.registry(), 'c_total')).toBe(8)
    expect(await read(totals.registry(), 'g')).toBe(9)

    totals.exited(1)
    const page = totals.registry()
    expect(await read(page, 'c_total')).toBe(8)
    expect(await read(page, 'h_seconds', 'h_seconds_count')).toBe(1)
    expect(await read(page, 'h_seconds', 'h_seconds_sum')).toBe(0.5)
    expect(await read(page, 'h_seconds', 'h_seconds_bucket')).toBe(0 + 1 + 1)
    expect(await read(page, 's_bytes', 's_bytes_count')).toBe(1)
    expect(await read(page, 's_bytes', 's_bytes_sum')).toBe(100)
    // A quantile of a worker that is gone describes nothing now (b's, of nothing observed, is 0);
    // a gauge is a current value.
    expect(await read(page, 's_bytes')).toBe(0)
    expect(await read(page, 'g')).toBe(2)

    // Its replacement's counts add to what was kept.
    const c = aWorker()
    c.requests.inc({ route: '/v1/pets' })
    totals.collected(3, await answer(c.registry))
    expect(await read(totals.registry(), 'c_total')).toBe(9)
    // A worker that exits before its first collection had nothing in any sum.
    totals.exited(4)
    expect(await read(totals.registry(), 'c_total')).toBe(9)
  })

  it("shows one process's limit for process_max_fds, and keeps a dead worker's CPU time", async () => {
    const totals = clusterTotals()
    const workers = [new Registry(), new Registry()]
    for (const register of workers) collectDefaultMetrics({ register })
    const limit = await read(workers[0]!, 'process_max_fds')
    // Only where /proc tells the limit does prom-client have the metric.
    if (limit !== undefined) expect(limit).toBeGreaterThan(0)
    for (const [i, worker] of workers.entries()) totals.collected(i, await answer(worker))
    expect(await read(totals.registry(), 'process_max_fds')).toBe(limit)
    // As prom-client's defaults already aggregate them: neither summed.
    expect(await read(totals.registry(), 'nodejs_version_info')).toBe(1)
    expect(await read(totals.registry(), 'process_start_time_seconds')).toBeUndefined()

    const before = (await read(totals.registry(), 'process_cpu_seconds_total'))!
    totals.exited(0)
    expect(await read(totals.registry(), 'process_cpu_seconds_total')).toBeGreaterThanOrEqual(before)
    expect(await read(totals.registry(), 'process_max_fds')).toBe(limit)
  })

  it('keeps every dead worker once, those that die while the kept totals are folded too', async () => {
    const totals = clusterTotals()
    const tick = () => new Promise((resolve) => setImmediate(resolve))
    for (let round = 0; round < 3; round++) {
      for (let id = round * 10; id < round * 10 + 5; id++) totals.collected(id, counterAnswer(1))
      // Five deaths at once: the second starts a fold, the three after come while it runs.
      for (let id = round * 10; id < round * 10 + 5; id++) totals.exited(id)
      expect(await read(totals.registry(), 'c_total')).toBe(5 * (round + 1))
      await tick()
      expect(await read(totals.registry(), 'c_total')).toBe(5 * (round + 1))
    }
  })

  // Steps of a primary's life: a worker counts, the primary collects, a worker dies and is replaced,
  // time passes (the kept totals are folded then, however many died).
  // Deaths often and in a row: one that comes while the kept totals are being folded must stay too.
  const aStep = fc.oneof(
    fc.record({ step: fc.constant('count' as const), worker: fc.nat(3), by: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ step: fc.constantFrom('collect' as const, 'wait' as const), worker: fc.nat(3) }),
    fc.record({ step: fc.constant('replace' as const), worker: fc.nat(3) }),
  )

  it('never shows a total below an earlier one, and shows what was counted by the last collection of each worker', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { maxLength: 60, size: 'max' }), async (steps) => {
        const totals = clusterTotals()
        let nextId = 0
        // Per slot: the live worker's id, its count now, and at its last collection.
        const slots = Array.from({ length: 4 }, () => ({ id: nextId++, now: 0, collected: 0 }))
        // Every count so far, and those made by dead workers after their last collection.
        let counted = 0
        let lost = 0
        let shown = 0
        for (const step of steps) {
          const slot = slots[step.worker]!
          if (step.step === 'count') {
            slot.now += step.by
            counted += step.by
          }
          if (step.step === 'replace') {
            totals.exited(slot.id)
            lost += slot.now - slot.collected
            Object.assign(slot, { id: nextId++, now: 0, collected: 0 })
          }
          if (step.step === 'wait') await new Promise((resolve) => setImmediate(resolve))
          if (step.step !== 'collect') continue
          for (const s of slots) {
            totals.collected(s.id, counterAnswer(s.now))
            s.collected = s.now
          }
          const total = (await read(totals.registry(), 'c_total')) ?? 0
          expect(total).toBeGreaterThanOrEqual(shown)
          expect(total).toBe(counted - lost)
          shown = total
        }
      }),
    )
  })
})
