import { AggregatorRegistry, type Aggregator, type Registry } from 'prom-client'

/** A metric as a worker's `registry.getMetricsAsJSON()` gives it, after its trip over IPC. */
export type MetricJson = {
  readonly name: string
  readonly help: string
  /** 'counter', 'gauge', 'histogram' or 'summary': prom-client's types name MetricType, the JSON a string. */
  readonly type: string
  readonly aggregator: Aggregator
  readonly values: ReadonlyArray<{
    readonly value: number
    readonly labels: Readonly<Record<string, string | number>>
    /** Set for a histogram's `_bucket`, `_sum`, `_count` and a summary's `_sum`, `_count`. */
    readonly metricName?: string
  }>
}

/** The metrics of the whole cluster, as the primary keeps them between collections. */
export type ClusterTotals = {
  /** What a live worker (by its cluster id) answered to the last collection. */
  readonly collected: (worker: number, metrics: ReadonlyArray<MetricJson>) => void
  /** A worker exited: what only adds up of its last answer is kept, the rest dropped. */
  readonly exited: (worker: number) => void
  /** The live workers' last answers and the dead workers' kept totals, aggregated by prom-client. */
  readonly registry: () => Registry
}

// What of a dead worker's last answer the cluster keeps adding: totals since the worker started,
// which the sum must go on counting (a total that goes down reads as a reset to Prometheus, and
// rate() jumps). A gauge is a current value, and a dead worker has none; nor has a summary's
// quantile. Only 'sum' metrics: a total under another aggregator is no part of a sum.
const cumulativePart = (metric: MetricJson): MetricJson | undefined => {
  if (metric.aggregator !== 'sum') return undefined
  if (metric.type === 'counter' || metric.type === 'histogram') return metric
  if (metric.type === 'summary')
    return { ...metric, values: metric.values.filter((v) => v.metricName !== undefined) }
  return undefined
}

// Values of one process that prom-client's default metrics leave to 'sum', though a sum of them
// means nothing: the cluster shows the lowest, the limit a worker meets first. (Its defaults set the
// others themselves: process_start_time_seconds 'omit', nodejs_version_info 'first', the event
// loop's lag 'average', 'min' and 'max'.)
const PER_PROCESS: Readonly<Record<string, Aggregator>> = { process_max_fds: 'min' }

const perProcess = (metric: MetricJson): MetricJson => {
  const aggregator = PER_PROCESS[metric.name]
  return aggregator === undefined ? metric : { ...metric, aggregator }
}

/**
 * The cluster's metrics, whose counters never go down while the primary lives: when a worker exits,
 * the totals of its last collected answer (counters, and histograms' and summaries' buckets, _sum
 * and _count) are added to every later page. What it counted after that collection is lost, as the
 * worker is (a SIGKILL or a crash leaves no time to ask it): at most the time between two
 * collections, that is between two scrapes, and never a decrease.
 */
export const clusterTotals = (): ClusterTotals => {
  const live = new Map<number, ReadonlyArray<MetricJson>>()
  // The kept totals of dead workers, folded into one answer by the same aggregation as a page's, so
  // that a primary that replaces workers for months keeps one set of series, not one per death.
  let retired: Array<ReadonlyArray<MetricJson>> = []
  let folding = false
  const fold = () => {
    if (folding || retired.length < 2) return
    folding = true
    const taken = retired.length
    Promise.resolve()
      .then(() => AggregatorRegistry.aggregate(retired.slice(0, taken)).getMetricsAsJSON())
      .then(
        (one) => {
          // In one step with the removal of what it sums: no page counts a worker twice, nor none.
          retired = [one as unknown as ReadonlyArray<MetricJson>, ...retired.slice(taken)]
          folding = false
          fold()
        },
        // Unfolded, the kept totals are as right, only larger.
        () => void (folding = false),
      )
  }
  return {
    collected: (worker, metrics) => void live.set(worker, metrics.map(perProcess)),
    exited: (worker) => {
      const last = live.get(worker)
      live.delete(worker)
      if (last === undefined) return
      const kept = last.flatMap((metric) => cumulativePart(metric) ?? [])
      if (kept.length > 0) retired.push(kept)
      fold()
    },
    // Live workers first: a metric's help and aggregator are taken from its first answer.
    registry: () => AggregatorRegistry.aggregate([...live.values(), ...retired]),
  }
}
