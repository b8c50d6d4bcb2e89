import type { AppConfig } from './config.js'
import type { LateCheck } from './prepare-database.js'
import { clusterMetricsPage } from './cluster-metrics.js'
import { createService } from './create-service.js'
import { exitAfterFlush, type Logger } from './logger.js'
import { startServer, type RunningServer } from './start-server.js'

/**
 * Runs the service in this process until a signal stops it: alone (`single`, preparing the database itself)
 * or as a worker of WEB_CONCURRENCY, whose primary prepared it.
 */
export const serve = async (
  config: AppConfig,
  logger: Logger,
  role: 'single' | 'worker',
): Promise<RunningServer> => {
  // First, so that every span has somewhere to go; the SDK is loaded only when OTEL_* asks for tracing.
  const tracing =
    config.tracing === undefined
      ? undefined
      : (await import('./tracing/start-tracing.js')).startTracing(config.tracing, logger)
  const lateCheck: LateCheck =
    role === 'single' && config.storage.kind === 'postgres'
      ? await (await import('./prepare-database.js')).prepareDatabase(config, logger)
      : {}
  const running = await startServer(config, (resolved) =>
    createService(resolved, {
      logger,
      migrate: false,
      ...(tracing === undefined ? {} : { spans: tracing.counts }),
      ...(role === 'worker' ? { metricsPage: (local) => clusterMetricsPage(local.registry) } : {}),
    }),
  )

  // `failed`: the status to end with whatever the outcome, as a start that was refused would.
  const stop = (reason: string, failed?: number) => {
    logger.info({ reason }, 'shutting down')
    lateCheck.giveUp?.()
    running.stop().then(
      async ({ outcome, cut }) => {
        // The spans of the last requests, sent within TRACES_FLUSH_MS.
        await tracing?.shutdown()
        // An exit 1 is a warning: requests were cut (each has its line, `outcome: cut`), or counts lost.
        if (outcome === 'clean') logger.info({ outcome, cut }, 'stopped')
        else logger.warn({ outcome, cut }, 'stopped')
        // The lines still in the log's buffer are written before the process ends.
        exitAfterFlush(logger, failed ?? (outcome === 'clean' ? 0 : 1))
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        exitAfterFlush(logger, 1)
      },
    )
  }
  if (role === 'single') {
    let signalled = false
    const onSignal = (signal: NodeJS.Signals) => {
      // CONTRACT: a second signal exits at once.
      if (signalled) {
        logger.warn({ signal }, 'second signal: exiting at once')
        // At once, but with the log written: the lines it holds take milliseconds.
        exitAfterFlush(logger, 1)
        return
      }
      signalled = true
      stop(signal)
    }
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  } else {
    // A terminal's Ctrl-C reaches every process of the group; the primary relays it once, and
    // decides alone when to give up waiting.
    process.on('SIGINT', () => {})
    let stopping = false
    const stopOnce = (reason: string) => {
      if (!stopping) stop(reason)
      stopping = true
    }
    process.on('SIGTERM', () => stopOnce('SIGTERM'))
    // Without its primary, nobody would replace or stop this worker.
    process.on('disconnect', () => stopOnce('the primary is gone'))
  }
  // The schema check that an unreachable database left to do: a schema behind ends the service.
  lateCheck.whenItFails?.((status) => stop('the schema check failed', status))
  // Only now: a signal that came before the handlers were in place would end the process at once,
  // and whoever reads this line may signal right away.
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
