import type { MetricsPage } from '@pets/adapters-http'
import cluster, { type Worker } from 'node:cluster'
import type { Registry } from 'prom-client'
import { clusterTotals, type MetricJson } from './cluster-totals.js'
import { sharedAnswer } from '../shared-check.js'

const REQUEST = 'animal-store:metrics-request'
const RESPONSE = 'animal-store:metrics-response'
// The primary's questions to each worker, and their answers: the worker's registry as JSON.
const COLLECT = 'animal-store:metrics-collect'
const COLLECTED = 'animal-store:metrics-collected'
const TIMEOUT_MS = 5_000
// How long the primary waits for each worker's metrics: well within a worker's wait for the page.
const COLLECT_TIMEOUT_MS = 2_000
// A scrape sees the workers' metrics as they were at most this long ago.
const COLLECT_EVERY_MS = 1_000

type MetricsResponse = { type: typeof RESPONSE; id: number; page?: MetricsPage; error?: string }
type Collected = { type: typeof COLLECTED; id: number; metrics?: ReadonlyArray<MetricJson>; error?: string }

/**
 * In the primary: answers a worker's request for every worker's metrics, aggregated by prom-client's
 * AggregatorRegistry.aggregate with the totals of the workers that died (cluster-totals.ts); the workers
 * are asked over IPC at most once a second, never twice at once. Not by AggregatorRegistry's own
 * clusterMetrics(): its answers do not say which worker sent them, and it waits out a worker that died.
 */
export const serveClusterMetrics = (
  onLate: (late: { workers: ReadonlyArray<number | undefined>; waitedMs: number }) => void,
): void => {
  const totals = clusterTotals()
  // The workers that listen: their registry is offered (clusterMetricsPage ran before they listened).
  const serving = new Set<Worker>()
  let next = 0
  let round: { id: number; waiting: Set<Worker>; settle: (error?: Error) => void } | undefined
  const answered = (worker: Worker) => {
    if (round?.waiting.delete(worker) && round.waiting.size === 0) round.settle()
  }
  cluster.on('listening', (worker: Worker) => serving.add(worker))
  cluster.on('exit', (worker: Worker) => {
    serving.delete(worker)
    // Before its totals are kept: a late answer of this round would make it live again.
    answered(worker)
    totals.exited(worker.id)
  })
  const ask = () =>
    new Promise<void>((resolve, reject) => {
      const id = next++
      const waiting = new Set([...serving].filter((worker) => worker.isConnected()))
      // A worker that is stuck (its event loop blocked, the process stopped) does not take the page away
      // from those that answer: the figures of its last answer stand for it, as for a worker that died.
      const timer = setTimeout(() => {
        onLate({ workers: [...waiting].map((worker) => worker.process.pid), waitedMs: COLLECT_TIMEOUT_MS })
        settle()
      }, COLLECT_TIMEOUT_MS)
      const settle = (error?: Error) => {
        clearTimeout(timer)
        round = undefined
        if (error === undefined) resolve()
        else reject(error)
      }
      round = { id, waiting, settle }
      if (waiting.size === 0) return settle()
      for (const worker of waiting) worker.send({ type: COLLECT, id })
    })
  const collect = sharedAnswer(
    async (): Promise<MetricsPage> => {
      await ask()
      const registry = totals.registry()
      return { contentType: registry.contentType, body: await registry.metrics() }
    },
    { everyMs: COLLECT_EVERY_MS },
  )
  cluster.on('message', (worker: Worker, message: Partial<Collected> & { type?: unknown; id?: unknown }) => {
    if (message.type === COLLECTED) {
      if (round === undefined || message.id !== round.id || !round.waiting.has(worker)) return
      if (message.error !== undefined || message.metrics === undefined)
        return round.settle(new Error(message.error ?? 'a worker sent no metrics'))
      totals.collected(worker.id, message.metrics)
      return answered(worker)
    }
    if (message.type !== REQUEST || typeof message.id !== 'number') return
    const id = message.id
    const reply = (fields: Omit<MetricsResponse, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id, ...fields })
    }
    collect().then(
      (page) => reply({ page }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    )
  })
}

/** In a worker: offers `registry` to the primary; returns what /metrics serves, the whole cluster's. */
export const clusterMetricsPage = (registry: Registry): (() => Promise<MetricsPage>) => {
  let next = 0
  const waiting = new Map<number, (response: MetricsResponse) => void>()
  const answer = (id: number, fields: Omit<Collected, 'type' | 'id'>) => {
    if (process.connected) process.send?.({ type: COLLECTED, id, ...fields })
  }
  process.on(
    'message',
    (message: Partial<MetricsResponse | Collected> | { type: typeof COLLECT; id: number }) => {
      if (typeof message.id !== 'number') return
      const id = message.id
      if (message.type === RESPONSE) waiting.get(id)?.(message as MetricsResponse)
      // Answered here, not by AggregatorRegistry in the worker: the primary keeps each worker's answer.
      // (getMetricsAsJSON's type says MetricType, an enum, for the string its JSON holds.)
      if (message.type === COLLECT)
        registry.getMetricsAsJSON().then(
          (metrics) => answer(id, { metrics: metrics as unknown as ReadonlyArray<MetricJson> }),
          (error: unknown) => answer(id, { error: error instanceof Error ? error.message : String(error) }),
        )
    },
  )
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
