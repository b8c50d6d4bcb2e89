import fc from 'fast-check'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { tallyCounter, tallyHistogram } from '../src/request-metrics.js'

const BOUNDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

// One event of a request's metrics: a count of a series, or an observation of a duration.
const anEvent = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  // A label value may hold anything a stranger sends: quotes, backslashes, new lines.
  route: fc.oneof(fc.constantFrom('/v1/pets', '/v1/pets/{petId}', 'none'), fc.string()),
  status: fc.constantFrom('200', '201', '404', '500'),
  seconds: fc.oneof(fc.constantFrom(...BOUNDS, 0, 11), fc.double({ min: 0, max: 20, noNaN: true })),
  counted: fc.boolean(),
})
type Event = typeof anEvent extends fc.Arbitrary<infer T> ? T : never

// The same events counted by prom-client's own classes, and by the tallies.
const both = (events: ReadonlyArray<Event>) => {
  const theirs = new Registry()
  const counter = new Counter({
    name: 'c_total',
    help: 'A count.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [theirs],
  })
  const histogram = new Histogram({
    name: 'h_seconds',
    help: 'A time.',
    labelNames: ['method', 'route'] as const,
    buckets: BOUNDS,
    registers: [theirs],
  })
  const ours = new Registry()
  // The caller finds each series once, as the service does: by its labels.
  const once = <T>(make: (labels: Record<string, string>) => T) => {
    const found = new Map<string, T>()
    return (labels: Record<string, string>) => {
      const key = JSON.stringify(labels)
      let series = found.get(key)
      if (series === undefined) found.set(key, (series = make(labels)))
      return series
    }
  }
  const count = once(tallyCounter(ours, 'c_total', 'A count.'))
  const time = once(tallyHistogram(ours, 'h_seconds', 'A time.', BOUNDS))
  for (const { method, route, status, seconds, counted } of events) {
    if (counted) {
      counter.labels(method, route, status).inc()
      count({ method, route, status }).inc()
    } else {
      histogram.labels(method, route).observe(seconds)
      time({ method, route }).observe(seconds)
    }
  }
  return { theirs, ours }
}

describe('the tallied counters and histograms', () => {
  it("expose what prom-client's Counter and Histogram expose for the same events, byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anEvent, { maxLength: 60 }), async (events) => {
        const { theirs, ours } = both(events)
        expect(await ours.metrics()).toBe(await theirs.metrics())
        expect(JSON.stringify(await ours.getMetricsAsJSON())).toBe(
          JSON.stringify(await theirs.getMetricsAsJSON()),
        )
      }),
      { numRuns: 200 },
    )
  })

  it('are summed across workers as prom-client sums its own', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anEvent), fc.array(anEvent), async (first, second) => {
        const a = both(first)
        const b = both(second)
        const sum = async (x: Registry, y: Registry) =>
          AggregatorRegistry.aggregate([await x.getMetricsAsJSON(), await y.getMetricsAsJSON()]).metrics()
        expect(await sum(a.ours, b.ours)).toBe(await sum(a.theirs, b.theirs))
      }),
      { numRuns: 100 },
    )
  })

  it('start again from nothing when the registry is reset', async () => {
    const { theirs, ours } = both([
      { method: 'GET', route: '/v1/pets', status: '200', seconds: 0.002, counted: true },
      { method: 'GET', route: '/v1/pets', status: '200', seconds: 0.002, counted: false },
    ])
    theirs.resetMetrics()
    ours.resetMetrics()
    expect(await ours.metrics()).toBe(await theirs.metrics())
  })
})
