import type { MetricsPage } from '@pets/adapters-http'
import cluster, { type Worker } from 'node:cluster'
import { AggregatorRegistry, type Registry } from 'prom-client'
import { sharedAnswer } from './shared-check.js'

const REQUEST = 'animal-store:metrics-request'
const RESPONSE = 'animal-store:metrics-response'
const TIMEOUT_MS = 5_000
// A scrape sees the workers' metrics as they were at most this long ago.
const COLLECT_EVERY_MS = 1_000

type MetricsResponse = { type: typeof RESPONSE; id: number; page?: MetricsPage; error?: string }

/**
 * In the primary: answers a worker's request for every worker's metrics, summed by prom-client's
 * AggregatorRegistry over IPC; the workers are asked at most once a second, never twice at once.
 */
export const serveClusterMetrics = (): void => {
  const aggregator = new AggregatorRegistry()
  // Shared here, where every worker's scrapes meet: a collection makes each worker serialize its registry.
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

/** In a worker: offers `registry` to the primary; returns what /metrics serves, the whole cluster's. */
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
