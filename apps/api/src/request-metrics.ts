import type { Metric, Registry } from 'prom-client'

type Labels = Readonly<Record<string, string>>
type Exported = {
  readonly value: number
  readonly metricName?: string
  readonly exemplar?: null
  readonly labels: Readonly<Record<string, string | number>>
}

/** One series of a counter, found once: a count costs an addition. */
export type CounterSeries = { readonly inc: () => void }
/** One series of a histogram, found once: an observation costs a bucket search and three additions. */
export type HistogramSeries = { readonly observe: (value: number) => void }

// prom-client's registries read a metric through `get()`, `reset()` and `aggregator`: a plain object answers
// as its Counter and Histogram do (registered by cast; guard: test/private-api-guards.test.ts).
const register = (
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => ReadonlyArray<Exported>,
  reset: () => void,
  beforeRead: () => void,
) => {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => {
      beforeRead()
      // In prom-client's order of keys: its Counter names the help first, its Histogram the name.
      return type === 'counter'
        ? { help, name, type, values: values(), aggregator: 'sum' }
        : { name, help, type, values: values(), aggregator: 'sum' }
    },
    reset,
  }
  registry.registerMetric(metric as unknown as Metric)
}

/**
 * A counter whose series the caller finds once (prom-client hashes the labels on every call: ARCHITECTURE.md,
 * 'Made by hand, on purpose', row "metrics shortcuts"), exposed as prom-client's Counter would be.
 * `beforeRead` runs before each read of the registry, for counts still waiting.
 */
export const tallyCounter = (
  registry: Registry,
  name: string,
  help: string,
  beforeRead: () => void = () => {},
) => {
  let counted: Array<{ readonly labels: Labels; value: number }> = []
  register(
    registry,
    name,
    help,
    'counter',
    () => counted.map(({ value, labels }) => ({ value, labels })),
    () => {
      for (const series of counted) series.value = 0
      counted = []
    },
    beforeRead,
  )
  return (labels: Labels): CounterSeries => {
    const series = { labels, value: 0 }
    return {
      inc: () => {
        if (series.value === 0) counted.push(series)
        series.value += 1
      },
    }
  }
}

type Observed = { readonly labels: Labels; readonly counts: Array<number>; sum: number; count: number }

/** A histogram whose series the caller finds once, exposed as prom-client's Histogram would be. */
export const tallyHistogram = (
  registry: Registry,
  name: string,
  help: string,
  bounds: ReadonlyArray<number>,
  beforeRead: () => void = () => {},
) => {
  let observed: Array<Observed> = []
  const bucket = `${name}_bucket`
  const exported = ({ labels, counts, sum, count }: Observed): Array<Exported> => {
    let below = 0
    return [
      ...bounds.map((le, i) => {
        below += counts[i]!
        return { value: below, metricName: bucket, exemplar: null, labels: { le, ...labels } }
      }),
      { value: count, metricName: bucket, exemplar: null, labels: { le: '+Inf', ...labels } },
      { value: sum, metricName: `${name}_sum`, labels: { ...labels } },
      { value: count, metricName: `${name}_count`, labels: { ...labels } },
    ]
  }
  register(
    registry,
    name,
    help,
    'histogram',
    () => observed.flatMap(exported),
    () => {
      for (const series of observed) {
        series.counts.fill(0)
        series.sum = series.count = 0
      }
      observed = []
    },
    beforeRead,
  )
  return (labels: Labels): HistogramSeries => {
    const series: Observed = { labels, counts: bounds.map(() => 0), sum: 0, count: 0 }
    return {
      observe: (value) => {
        if (series.count === 0) observed.push(series)
        // The first bound at or above the value, as prom-client's; above the last, +Inf alone.
        for (let i = 0; i < bounds.length; i++)
          if (value <= bounds[i]!) {
            series.counts[i]! += 1
            break
          }
        series.sum += value
        series.count += 1
      },
    }
  }
}
