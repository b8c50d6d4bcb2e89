import { knownMethodOf, type MetricsPage, type ObservedRequest } from '@pets/adapters-http'
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client'
import { tallyCounter, tallyHistogram, type CounterSeries, type HistogramSeries } from './request-metrics.js'

/** What the pool gauges read: a pg Pool fits. */
export type PoolStats = {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

/** The service's metrics: a registry of its own, fed by every answered request. */
export type ServiceMetrics = {
  readonly registry: Registry
  readonly observe: (request: ObservedRequest) => void
  /** The exposition of this process's registry. */
  readonly page: () => Promise<MetricsPage>
}

type RouteSeries = {
  readonly took: HistogramSeries
  readonly abandoned: CounterSeries
  readonly answered: Map<number, CounterSeries>
}

export type ServiceMetricsOptions = {
  /** The ids of the deprecated operations, whose calls are counted per API key. */
  readonly deprecatedOperations: ReadonlyArray<string>
  /** The PostgreSQL pool, when there is one. */
  readonly pool?: PoolStats | undefined
  /** The spans of this process so far, when it traces (start-tracing.ts). */
  readonly spans?:
    (() => { readonly ended: number; readonly exported: number; readonly failed: number }) | undefined
}

/** Metrics on the service's own registry, never prom-client's global one: two services never mix counts. */
export const createServiceMetrics = (options: ServiceMetricsOptions): ServiceMetrics => {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry })
  // Requests are counted at the end of the turn, together, and before any read of the registry
  // (ARCHITECTURE.md, 'Made by hand, on purpose', row "metrics shortcuts").
  let waiting: Array<ObservedRequest> = []
  const countWaiting = () => {
    if (waiting.length === 0) return
    const answered = waiting
    waiting = []
    for (const request of answered) count(request)
  }
  const requests = tallyCounter(
    registry,
    'http_requests_total',
    'Requests answered, by method, route template and status.',
    countWaiting,
  )
  const duration = tallyHistogram(
    registry,
    'http_request_duration_seconds',
    'Time from receiving a request to its answer, by method and route template.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    countWaiting,
  )
  // Apart from the answered ones: a client that went away is no error of the service, and must not
  // raise its error rate (or its latency) in a dashboard or an alert.
  const aborted = tallyCounter(
    registry,
    'http_requests_aborted_total',
    'Requests whose client went away before the answer, by method and route template: not answered, not counted above.',
    countWaiting,
  )
  const deprecated = tallyCounter(
    registry,
    'deprecated_operation_calls_total',
    'Calls of deprecated operations, by operation id and API key id: who must move before the sunset.',
    countWaiting,
  )
  const pool = options.pool
  if (pool !== undefined) {
    const gauge = (name: string, help: string, read: (p: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(pool))
        },
      })
    gauge(
      'pg_pool_connections',
      'Connections the PostgreSQL pool holds, in use or idle.',
      (p) => p.totalCount,
    )
    gauge(
      'pg_pool_in_use_connections',
      'Connections of the PostgreSQL pool that a query uses.',
      (p) => p.totalCount - p.idleCount,
    )
    gauge(
      'pg_pool_idle_connections',
      'Connections of the PostgreSQL pool that no query uses.',
      (p) => p.idleCount,
    )
    gauge(
      'pg_pool_waiting_clients',
      'Queries waiting for a connection of the PostgreSQL pool.',
      (p) => p.waitingCount,
    )
  }
  const spans = options.spans
  if (spans !== undefined)
    new Counter({
      name: 'tracing_spans_total',
      help:
        'Sampled spans of this process: ended (every one), exported, failed (their export failed). ' +
        'Ended but neither exported nor failed: queued, or dropped by a full queue (spans lost).',
      labelNames: ['outcome'],
      registers,
      collect() {
        const { ended, exported, failed } = spans()
        this.reset()
        this.inc({ outcome: 'ended' }, ended)
        this.inc({ outcome: 'exported' }, exported)
        this.inc({ outcome: 'failed' }, failed)
      },
    })
  const deprecatedOperations = new Set(options.deprecatedOperations)
  // Each series found once, by keys V8 keeps hashed (the route table's strings, node's method names);
  // bounded: ten method names (knownMethodOf), and routes and statuses are the service's.
  const series = new Map<string, Map<string, RouteSeries>>()
  const seriesOf = (method: string, route: string) => {
    let byMethod = series.get(route)
    if (byMethod === undefined) series.set(route, (byMethod = new Map()))
    let found = byMethod.get(method)
    if (found === undefined) {
      found = {
        took: duration({ method, route }),
        abandoned: aborted({ method, route }),
        answered: new Map(),
      }
      byMethod.set(method, found)
    }
    return found
  }
  const answeredOf = (of: RouteSeries, method: string, route: string, status: number) => {
    let answered = of.answered.get(status)
    if (answered === undefined)
      of.answered.set(status, (answered = requests({ method, route, status: String(status) })))
    return answered
  }
  const callsOf = new Map<string, Map<string, CounterSeries>>()
  const deprecatedCall = (operation: string, keyId: string) => {
    let byKey = callsOf.get(operation)
    if (byKey === undefined) callsOf.set(operation, (byKey = new Map()))
    let calls = byKey.get(keyId)
    if (calls === undefined) byKey.set(keyId, (calls = deprecated({ operation, key_id: keyId })))
    calls.inc()
  }

  const count = ({
    method: sent,
    route,
    status,
    durationMs,
    operation,
    apiKeyId,
    aborted: gone,
  }: ObservedRequest) => {
    // "none": the request matched no route (or was refused before routing, as a 401 is). Never
    // the path, nor a method outside the nine known ones: strangers choose them.
    const routed = route ?? 'none'
    const method = knownMethodOf(sent)
    const of = seriesOf(method, routed)
    if (gone) of.abandoned.inc()
    else {
      answeredOf(of, method, routed, status).inc()
      of.took.observe(durationMs / 1000)
    }
    if (operation !== null && apiKeyId !== null && deprecatedOperations.has(operation))
      deprecatedCall(operation, apiKeyId)
  }

  return {
    registry,
    observe: (request) => {
      if (waiting.push(request) === 1) setImmediate(countWaiting)
    },
    page: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  }
}
