import cluster, { type Worker } from 'node:cluster'
import { serveClusterMetrics } from './cluster-metrics.js'
import type { AppConfig } from '../config.js'
import { handedConnections } from './handed-connections.js'
import type { LateCheck } from '../prepare-database.js'
import { exitStopped, logEcho, STORAGE_CLOSE_MS, stopBeforeReady, withoutEchoes } from '../lifecycle.js'
import { exitAfterFlush, type Logger } from '../log/logger.js'
import { watchWorkers } from './worker-watchdog.js'

// A worker that dies sooner than this after it was started counts as failing to start: the next
// one waits longer, up to the cap, so a broken deployment does not fork in a tight loop.
const QUICK_DEATH_MS = 10_000
const FIRST_BACKOFF_MS = 250
const MAX_BACKOFF_MS = 30_000
/** The wait before replacing a worker: 0 after one that ran a while, else 0.25 s doubling up to 30 s. */
export const restartBackoff = (
  livedMs: number,
  quickDeaths: number,
): { delayMs: number; quickDeaths: number } => {
  const deaths = livedMs < QUICK_DEATH_MS ? quickDeaths + 1 : 0
  return {
    delayMs: deaths === 0 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (deaths - 1)),
    quickDeaths: deaths,
  }
}

// How much longer than a worker's own shutdown the primary waits before it kills the worker.
const STOP_MARGIN_MS = 5_000

/**
 * The primary of WEB_CONCURRENCY: migrates and checks the keys once, forks the workers (they
 * share the port), replaces a worker that dies (not while shutting down), relays SIGTERM and
 * SIGINT to every worker, and exits 0 when all of them stopped cleanly. A second signal kills them.
 * A worker that cannot start before any listens (exit 1 or 2) ends the primary with its code.
 */
export const runPrimary = async (
  config: AppConfig,
  logger: Logger,
  workerEnv: Readonly<Record<string, string>>,
): Promise<void> => {
  // Until the workers are forked, a signal ends the start where it is, as one process's would.
  // The exit waits for the log's buffer: meanwhile nothing is forked, and a second signal exits at once.
  // A stop also ends a wait for the migration lock, with nothing migrated.
  const stopped = new AbortController()
  const early = withoutEchoes((signal: NodeJS.Signals) => {
    if (!stopped.signal.aborted) {
      stopped.abort()
      return stopBeforeReady(logger, signal, 'preparing the database')
    }
    logger.warn({ signal }, 'second signal: exiting at once')
    exitAfterFlush(logger, 1)
  }, logEcho(logger))
  process.on('SIGTERM', early).on('SIGINT', early)
  const lateCheck: LateCheck =
    config.storage.kind === 'postgres'
      ? await (await import('../prepare-database.js')).prepareDatabase(config, logger, stopped.signal)
      : {}
  if (stopped.signal.aborted) return new Promise<never>(() => {})
  process.off('SIGTERM', early).off('SIGINT', early)
  serveClusterMetrics((late) =>
    logger.warn(late, 'workers late with their metrics: their last figures are shown'),
  )
  const stopWatching = watchWorkers((worker, silentMs) =>
    logger.error({ worker: worker.process.pid, silentMs }, 'a worker stopped answering: killing it'),
  )

  const startedAt = new Map<Worker, number>()
  // What closes the connections handed to a worker that it never took, at its exit (handed-connections.ts).
  const untaken = new Map<Worker, () => number>()
  const respawns = new Set<NodeJS.Timeout>()
  let quickDeaths = 0
  let stopping = false
  let allClean = true
  // The status to end with whatever the workers do: a schema found behind once the database answered.
  let failed: number | undefined
  // Until a worker listens, one that ends as a start refused by its surroundings (1: a port in use, an
  // address that does not resolve; 2: a usage error) ends them all: the others would meet the same.
  let served = false
  // A worker that the relayed SIGTERM ended before it listened (node still loading it, before its handlers were
  // in place) had served nothing: no failure of the stop.
  const listened = new Set<Worker>()
  // A worker has listened once each of its listeners has: PORT, then METRICS_PORT when set (a worker whose
  // METRICS_PORT is taken has opened PORT already, and would otherwise be replaced for ever).
  const listeners = config.metricsPort === undefined ? 1 : 2
  const opened = new Map<Worker, number>()
  cluster.on('listening', (worker) => {
    opened.set(worker, (opened.get(worker) ?? 0) + 1)
    if (opened.get(worker)! < listeners) return
    served = true
    listened.add(worker)
  })
  const refusedToStart = (code: number | null) => !served && (code === 1 || code === 2)

  const fork = () => {
    const worker = cluster.fork(workerEnv)
    startedAt.set(worker, Date.now())
    untaken.set(worker, handedConnections(worker))
  }
  let reason = ''
  const finish = () =>
    exitStopped(logger, {
      outcome: allClean ? 'clean' : 'a worker did not stop cleanly',
      reason,
      ...(failed === undefined ? {} : { failed }),
    })

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0)
    startedAt.delete(worker)
    opened.delete(worker)
    const connectionsReset = untaken.get(worker)?.() ?? 0
    untaken.delete(worker)
    const unstarted = !listened.delete(worker)
    if (stopping) {
      allClean &&= code === 0 || (unstarted && signal === 'SIGTERM')
      if (startedAt.size === 0) finish()
      return
    }
    if (refusedToStart(code)) {
      stopping = true
      logger.error(
        { worker: worker.process.pid, code },
        'a worker could not start (its line says why): stopping',
      )
      respawns.forEach(clearTimeout)
      for (const other of startedAt.keys()) other.process.kill('SIGKILL')
      exitAfterFlush(logger, code!)
      return
    }
    const backoff = restartBackoff(lived, quickDeaths)
    quickDeaths = backoff.quickDeaths
    const delay = backoff.delayMs
    // Exit 0: a worker that stopped cleanly on a SIGTERM sent to it alone (the primary sends none but at its
    // own stop): nothing failed, but its place was empty.
    const fields = { worker: worker.process.pid, code, signal, restartInMs: delay, connectionsReset }
    if (code === 0) logger.warn(fields, 'a worker stopped, not asked by the primary; replacing it')
    else logger.error(fields, 'a worker died; replacing it')
    const timer = setTimeout(() => {
      respawns.delete(timer)
      if (!stopping) fork()
    }, delay)
    respawns.add(timer)
  })

  const onSignal = (signal: NodeJS.Signals | 'the schema check failed') => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: killing the workers and exiting at once')
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL')
      exitAfterFlush(logger, 1)
      return
    }
    stopping = true
    reason = signal
    stopWatching()
    lateCheck.giveUp?.()
    logger.info({ signal, workers: startedAt.size }, 'shutting down')
    respawns.forEach(clearTimeout)
    if (startedAt.size === 0) return finish()
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM')
    setTimeout(
      () => {
        logger.error('workers did not stop in time: killing them')
        for (const worker of startedAt.keys()) worker.process.kill('SIGKILL')
        exitAfterFlush(logger, 1)
      },
      config.shutdownDelayMs + config.shutdownGraceMs + STORAGE_CLOSE_MS + STOP_MARGIN_MS,
    ).unref()
  }
  // A signal that comes with the first (a Ctrl-C under pnpm, systemd's stop) is no second: withoutEchoes.
  const onStopSignal = withoutEchoes(onSignal, logEcho(logger))
  process.on('SIGTERM', onStopSignal)
  process.on('SIGINT', onStopSignal)

  // As serve.ts does for one process: a schema found behind once the database answered ends the service.
  lateCheck.whenItFails?.((status) => {
    failed = status
    onSignal('the schema check failed')
  })

  logger.info({ workers: config.webConcurrency }, 'starting workers')
  logger.flush()
  for (let i = 0; i < config.webConcurrency; i++) fork()
}
