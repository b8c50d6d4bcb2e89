import type { MetricsPage } from '@pets/adapters-http'
import cluster, { type Worker } from 'node:cluster'
import { AggregatorRegistry, type Registry } from 'prom-client'
import type { SharedCheckOptions } from './shared-check.js'

const REQUEST = 'animal-store:metrics-request'
const RESPONSE = 'animal-store:metrics-response'
const TIMEOUT_MS = 5_000
// A scrape sees the workers' metrics as they were at most this long ago.
const COLLECT_EVERY_MS = 1_000

type MetricsResponse = { type: typeof RESPONSE; id: number; page?: MetricsPage; error?: string }

/**
 * `ask`, shared as sharedCheck (shared-check.ts) shares a check, but with the answer's value: never
 * two at once (whoever comes meanwhile gets the answer of the one under way), and once it has
 * answered, callers get that answer until `everyMs` after it started. A failure is shared the same
 * way, as the same rejection, never as a value.
 */
export const sharedAnswer = <T>(
  ask: () => Promise<T>,
  { everyMs, now = () => performance.now() }: SharedCheckOptions,
): (() => Promise<T>) => {
  let latest: { readonly startedAt: number; readonly answer: Promise<T>; settled: boolean } | undefined
  return () => {
    const at = now()
    if (latest === undefined || (latest.settled && at - latest.startedAt >= everyMs)) {
      const entry = { startedAt: at, answer: ask(), settled: false }
      latest = entry
      const settle = () => void (entry.settled = true)
      entry.answer.then(settle, settle)
    }
    return latest.answer
  }
}

/**
 * In the primary: answers a worker's request for the metrics of every worker, summed by
 * prom-client's AggregatorRegistry (it asks each worker for its registry over IPC). Whichever
 * worker forwards a scrape, the workers are asked at most once a second, and never twice at once.
 */
export const serveClusterMetrics = (): void => {
  const aggregator = new AggregatorRegistry()
  // Here, where the scrapes of every worker meet: each collection makes every worker serialize its
  // registry. A fast failure (a registry that throws) is shared for the second too, as a failure.
  const collect = sharedAnswer(() => aggregator.clusterMetrics(), { everyMs: COLLECT_EVERY_MS })
  cluster.on('message', (worker: Worker, message: { type?: unknown; id?: unknown }) => {
    if (message.type !== REQUEST || typeof message.id !== 'number') return
    const id = message.id
    const reply = (fields: Omit<MetricsResponse, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id, ...fields })
    }
    collect().then(
      (body) => reply({ page: { contentType: aggregator.contentType, body } }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    )
  })
}

/**
 * In a worker: makes `registry` the one the primary collects, and returns what /metrics serves:
 * the metrics of all workers, as one scrape must see them (any worker may answer it).
 */
export const clusterMetricsPage = (registry: Registry): (() => Promise<MetricsPage>) => {
  // Its constructor makes this worker answer the primary's requests for its registry.
  new AggregatorRegistry()
  AggregatorRegistry.setRegistries([registry])
  let next = 0
  const waiting = new Map<number, (response: MetricsResponse) => void>()
  process.on('message', (message: Partial<MetricsResponse>) => {
    if (message.type === RESPONSE && typeof message.id === 'number')
      waiting.get(message.id)?.(message as MetricsResponse)
  })
  // The scrapes of this worker that come while it waits for the primary share that one wait: the
  // page comes over IPC once, not once each. No longer: the primary decides how old a page may be.
  const ask = () =>
    new Promise<MetricsPage>((resolve, reject) => {
      if (!process.connected) return reject(new Error('the primary is gone: no metrics of the cluster'))
      const id = next++
      const timer = setTimeout(() => {
        waiting.delete(id)
        reject(new Error(`the primary did not send the cluster's metrics within ${TIMEOUT_MS} ms`))
      }, TIMEOUT_MS)
      waiting.set(id, (response) => {
        clearTimeout(timer)
        waiting.delete(id)
        if (response.page !== undefined) resolve(response.page)
        else
          reject(new Error(`collecting the cluster's metrics failed: ${response.error ?? 'no reason given'}`))
      })
      process.send?.({ type: REQUEST, id })
    })
  return sharedAnswer(ask, { everyMs: 0 })
}
