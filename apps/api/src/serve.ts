import cluster from 'node:cluster'
import type { AppConfig } from './config.js'
import type { LateCheck } from './prepare-database.js'
import { clusterMetricsPage } from './cluster/cluster-metrics.js'
import { createService } from './create-service.js'
import { stopBeforeReady, exitStopped, logEcho, withoutEchoes } from './lifecycle.js'
import { exitAfterFlush, type Logger } from './log/logger.js'
import { startServer, type RunningServer } from './start-server.js'
import type { Tracing } from './tracing/start-tracing.js'
import { answerPings } from './cluster/worker-watchdog.js'

/**
 * Runs the service in this process until a signal stops it: alone (`single`, preparing the database itself)
 * or as a worker of WEB_CONCURRENCY, whose primary prepared it.
 */
export const serve = async (
  config: AppConfig,
  logger: Logger,
  role: 'single' | 'worker',
): Promise<RunningServer> => {
  // What the start is doing until the service is ready. A stop asked meanwhile ends the start there
  // (stopBeforeReady); one asked while the listener opens and the service is built waits for them, then
  // drains as any stop does (requests may already wait on the listener).
  let starting: string | undefined = 'starting'
  let running: RunningServer | undefined = undefined
  let askedWhileOpening: string | undefined
  // Stopped before it was ready: the exit waits for the log's buffer, and the start must not go on meanwhile
  // (nor take the migration lock it waits for).
  const early = new AbortController()
  const never = () => new Promise<never>(() => {})
  let tracing: Tracing | undefined = undefined

  // `failed`: the status to end with whatever the outcome, as a start that was refused would.
  const stop = (reason: string, failed?: number) => {
    if (running === undefined) {
      if (starting === OPENING) askedWhileOpening ??= reason
      else {
        early.abort()
        stopBeforeReady(logger, reason, starting ?? 'starting')
      }
      return
    }
    logger.info({ reason }, 'shutting down')
    lateCheck.giveUp?.()
    running.stop().then(
      async ({ outcome, cut }) => {
        // The spans of the last requests, sent within TRACES_FLUSH_MS.
        await tracing?.shutdown()
        // An exit 1 is a warning: requests were cut (each has its line, `outcome: cut`), or counts lost.
        exitStopped(logger, { outcome, cut, reason, ...(failed === undefined ? {} : { failed }) })
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        exitAfterFlush(logger, 1)
      },
    )
  }
  // First of all, so that a signal never ends the process unsaid, even while it waits for the migration lock.
  stopOnSignals(role, stop, logger)

  // First, so that every span has somewhere to go; the SDK is loaded only when OTEL_* asks for tracing.
  tracing =
    config.tracing === undefined
      ? undefined
      : (await import('./tracing/start-tracing.js')).startTracing(config.tracing, logger)
  if (early.signal.aborted) return never()
  starting = 'preparing the database'
  const lateCheck: LateCheck =
    role === 'single' && config.storage.kind === 'postgres'
      ? await (await import('./prepare-database.js')).prepareDatabase(config, logger, early.signal)
      : {}
  if (early.signal.aborted) return never()
  starting = OPENING
  const spans = tracing?.counts
  running = await startServer(config, (resolved) =>
    createService(resolved, {
      logger,
      migrate: false,
      ...(spans === undefined ? {} : { spans }),
      ...(role === 'worker' ? { metricsPage: (local) => clusterMetricsPage(local.registry) } : {}),
    }),
  )
  starting = undefined
  // The primary kills a worker whose event loop stops answering its pings (worker-watchdog.ts).
  if (role === 'worker') answerPings()
  if (askedWhileOpening !== undefined) {
    stop(askedWhileOpening)
    return running
  }
  // The schema check that an unreachable database left to do: a schema behind ends the service.
  lateCheck.whenItFails?.((status) => stop('the schema check failed', status))
  logger.info(
    {
      url: running.url,
      // METRICS_PORT's listener (a free port when 0): where monitoring finds /metrics.
      ...(running.metricsUrl === undefined ? {} : { metricsUrl: running.metricsUrl }),
      env: config.env,
      publicBaseUrl: running.publicBaseUrl,
    },
    'listening',
  )
  // Written now rather than with the next batch: whoever waits for this line reads it at once.
  logger.flush()
  return running
}

const OPENING = 'opening the listener'

// SIGTERM and SIGINT stop a single process; a second one exits at once. A worker stops on SIGTERM.
const stopOnSignals = (role: 'single' | 'worker', stop: (reason: string) => void, logger: Logger) => {
  if (role === 'single') {
    let signalled = false
    // A signal that comes with the first (a Ctrl-C under pnpm, systemd's stop) is no second: withoutEchoes.
    const onSignal = withoutEchoes((signal: NodeJS.Signals) => {
      // CONTRACT: a second signal exits at once.
      if (signalled) {
        logger.warn({ signal }, 'second signal: exiting at once')
        // At once, but with the log written: the lines it holds take milliseconds.
        exitAfterFlush(logger, 1)
        return
      }
      signalled = true
      stop(signal)
    }, logEcho(logger))
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
    return
  }
  // A terminal's Ctrl-C reaches every process of the group; the primary relays it once, and
  // decides alone when to give up waiting.
  process.on('SIGINT', () => {})
  let stopping = false
  const stopOnce = (reason: string) => {
    if (!stopping) stop(reason)
    stopping = true
  }
  process.on('SIGTERM', () => stopOnce('SIGTERM'))
  // A primary gone (SIGKILLed, the OOM killer) closes the IPC channel, and node's cluster exits the worker at
  // once, unless `worker.exitedAfterDisconnect` is true when the process's 'disconnect' event reaches it (as
  // node documents at `Worker.process`). Said first, so that this worker drains as on a SIGTERM: its requests in
  // flight are answered (`Connection: close`), then it exits. No new connection comes: the primary held the
  // listening socket. A disconnect the primary asked for has set it already.
  const worker = cluster.worker
  if (worker !== undefined)
    process.prependOnceListener('disconnect', () => {
      if (worker.exitedAfterDisconnect) return
      worker.exitedAfterDisconnect = true
      logger.error(
        { reason: 'the primary is gone' },
        'the primary is gone: finishing the requests in flight, then exiting',
      )
      stopOnce('the primary is gone')
    })
}
