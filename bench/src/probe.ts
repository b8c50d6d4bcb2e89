import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { quantile } from './load.js'

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
