import autocannon from 'autocannon'
import { readProcCpuMs, sampleRss } from './memory.js'
import type { Scenario } from './scenarios.js'

/** How hard and how long one run drives a server. */
export type Load = {
  readonly connections: number
  /** Seconds of load; or, when `requests` is set, that many requests in all. */
  readonly durationS: number
  readonly requests?: number
}

/** What one run measured. Latencies are in milliseconds. */
export type Sample = {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly peakRssBytes: number
  readonly requests: number
  /** CPU time (user and system) the server used per request, in µs. */
  readonly cpuUsPerRequest: number
}

/** A run that had an error or an unexpected status: its figures must not be reported. */
export class InvalidRun extends Error {
  override readonly name = 'InvalidRun'
}

/** The value at quantile q (0..1) of ascending numbers. */
export const quantile = (sorted: ArrayLike<number>, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Drives one server with one scenario through autocannon and measures requests per second, the
 * latencies (from autocannon's own per-response timing, kept unrounded), and the server's peak
 * resident memory. Throws InvalidRun on any error, timeout or status other than the expected one.
 */
export const drive = async (
  target: { readonly name: string; readonly url: string; readonly pid: number },
  scenario: Scenario,
  load: Load,
  apiKey: string,
): Promise<Sample> => {
  const latencies: Array<number> = []
  const rss = sampleRss(target.pid)
  const cpuBefore = readProcCpuMs(target.pid)
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${target.url}${scenario.path}`,
        method: scenario.method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(scenario.body === undefined ? {} : { body: scenario.body }),
        connections: load.connections,
        ...(load.requests === undefined ? { duration: load.durationS } : { amount: load.requests }),
        timeout: 10,
        // autocannon stops only at a sample tick; every 100 ms, a run lasts what it was asked to.
        sampleInt: 100,
      },
      (error, result) => (error === null || error === undefined ? resolve(result) : reject(error)),
    )
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) =>
      latencies.push(ms),
    )
  })
  const peakRssBytes = rss.stop()
  const cpuMs = readProcCpuMs(target.pid) - cpuBefore
  const statuses = Object.entries(result.statusCodeStats as Record<string, { count: number }>)
  const unexpected = statuses.filter(([status]) => Number(status) !== scenario.status)
  if (
    result.errors > 0 ||
    result.timeouts > 0 ||
    result.non2xx > 0 ||
    unexpected.length > 0 ||
    latencies.length === 0
  )
    throw new InvalidRun(
      `${target.name}, ${scenario.title}: ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.non2xx} responses that are not 2xx, statuses ${statuses.map(([s, { count }]) => `${s}×${count}`).join(', ') || 'none'} ` +
        `(expected only ${scenario.status}); this run is not reported.`,
    )
  const sorted = Float64Array.from(latencies).sort()
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    peakRssBytes,
    requests: result.requests.total,
    cpuUsPerRequest: (cpuMs * 1000) / result.requests.total,
  }
}
