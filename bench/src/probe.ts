import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { InvalidRun, quantile } from './load.js'
import type { Scenario } from './scenarios.js'

/** Latency of one request at a time, in milliseconds. */
export type Latency = { readonly p50Ms: number; readonly p99Ms: number; readonly meanMs: number }

const once = (agent: Agent, url: string, apiKey: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })

const mean = (values: Float64Array): number => values.reduce((sum, v) => sum + v, 0) / values.length

/**
 * Sends `count` GET requests one after another on one kept-alive connection, after `warmup` more,
 * and measures each; any status but 200 throws. Unloaded latency shows what a query costs.
 */
export const probeLatency = async (
  url: string,
  apiKey: string,
  count: number,
  warmup: number,
): Promise<Latency> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times = new Float64Array(count)
  try {
    for (let i = -warmup; i < count; i++) {
      const started = performance.now()
      const status = await once(agent, url, apiKey)
      if (status !== 200) throw new Error(`GET ${url} answered ${status}; the latency probe expects 200`)
      if (i >= 0) times[i] = performance.now() - started
    }
  } finally {
    agent.destroy()
  }
  const sorted = times.sort()
  return { p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), meanMs: mean(sorted) }
}

/**
 * Sends a scenario's request once and reads its answer; any status but the scenario's makes the run invalid.
 * Before a freshly launched process is timed: its first request opens its pool's connections (through
 * PgBouncer: the pooler's too), which a short run (--smoke: 0.25 s) could otherwise spend whole.
 */
export const answeredOnce = async (
  target: { readonly name: string; readonly url: string },
  scenario: Scenario,
  apiKey: string,
): Promise<void> => {
  const res = await fetch(`${target.url}${scenario.path}`, {
    method: scenario.method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  })
  await res.arrayBuffer()
  if (res.status !== scenario.status)
    throw new InvalidRun(
      `${target.name}, ${scenario.title}: its first request answered ${res.status}, not ${scenario.status}; ` +
        'this run is not reported.',
    )
}
