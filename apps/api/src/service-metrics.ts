import type { MetricsPage, ObservedRequest } from '@pets/adapters-http'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

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

export type ServiceMetricsOptions = {
  /** The ids of the deprecated operations, whose calls are counted per API key. */
  readonly deprecatedOperations: ReadonlyArray<string>
  /** The PostgreSQL pool, when there is one. */
  readonly pool?: PoolStats
}

/**
 * Creates the metrics on a registry of the service's own, never prom-client's global one, so two
 * services in one process (or two tests) never count into each other.
 */
export const createServiceMetrics = (options: ServiceMetricsOptions): ServiceMetrics => {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  // Apart from the answered ones: a client that went away is no error of the service, and must not
  // raise its error rate (or its latency) in a dashboard or an alert.
  const aborted = new Counter({
    name: 'http_requests_aborted_total',
    help: 'Requests whose client went away before the answer, by method and route template: not answered, not counted above.',
    labelNames: ['method', 'route'] as const,
    registers,
  })
  const deprecated = new Counter({
    name: 'deprecated_operation_calls_total',
    help: 'Calls of deprecated operations, by operation id and API key id: who must move before the sunset.',
    labelNames: ['operation', 'key_id'] as const,
    registers,
  })
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
  const deprecatedOperations = new Set(options.deprecatedOperations)
  // The series of each method, route and status, found once: prom-client would otherwise hash the
  // labels on every call. Bounded: node knows few methods, and routes and statuses are the service's.
  const series = new Map<
    string,
    {
      readonly answered: Counter.Internal
      readonly took: Histogram.Internal<string>
      readonly abandoned: Counter.Internal
    }
  >()
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`
    let found = series.get(key)
    if (found === undefined) {
      found = {
        answered: requests.labels(method, route, String(status)),
        took: duration.labels(method, route),
        abandoned: aborted.labels(method, route),
      }
      series.set(key, found)
    }
    return found
  }

  return {
    registry,
    observe: ({ method, route, status, durationMs, operation, apiKeyId, aborted: gone }) => {
      // "none": the request matched no route (or was refused before routing, as a 401 is). Never
      // the path: strangers choose it, and each would be a series of its own.
      const { answered, took, abandoned } = seriesOf(method, route ?? 'none', status)
      if (gone) abandoned.inc()
      else {
        answered.inc()
        took.observe(durationMs / 1000)
      }
      if (operation !== null && apiKeyId !== null && deprecatedOperations.has(operation))
        deprecated.inc({ operation, key_id: apiKeyId })
    },
    page: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  }
}
