import { answerEveryRequest, APP_ANSWERS_EVERY_REQUEST, connectionCutter } from '@pets/adapters-http'
import {
  createServer,
  ServerResponse,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppConfig } from './config.js'
import { defaultPublicBaseUrl } from './config.js'
import type { AnimalStoreService } from './create-service.js'
import {
  capConnections,
  endStalledConnections,
  listenerTimeouts,
  pipelinesInOrder,
} from './connection-limits.js'
import { STORAGE_CLOSE_MS } from './lifecycle.js'
import { createLogger } from './log/logger.js'
import { idleConnectionCloser } from './idle-connections.js'
import { within } from './within.js'

/**
 * How a stop ended: every request finished within the grace and the storage closed (`clean`), the grace ran
 * out with requests in flight (they were cut), or the requests were over but closing the storage took longer
 * than STORAGE_CLOSE_MS.
 */
export type StopOutcome = 'clean' | 'grace-exceeded' | 'close-timed-out'

/** A stop's outcome and how many requests in flight it cut when the grace ran out (0 unless it did). */
export type Stopped = { readonly outcome: StopOutcome; readonly cut: number }

/** A listening service and the way to stop it. */
export type RunningServer = {
  readonly server: Server
  readonly service: AnimalStoreService
  /** Where the server listens, such as http://127.0.0.1:3000. */
  readonly url: string
  /** What the service writes in Location and Link headers. */
  readonly publicBaseUrl: string
  /** With METRICS_PORT: where `/metrics` listens, such as http://127.0.0.1:9464. */
  readonly metricsUrl?: string
  /**
   * Shuts down as CONTRACT.md says: /readyz 503 at once, served for SHUTDOWN_DELAY_MS, then the listener
   * closed and in-flight requests given SHUTDOWN_GRACE_MS (those left are cut, each logged), then the
   * storage closed within STORAGE_CLOSE_MS; calling it again returns the same result.
   */
  readonly stop: () => Promise<Stopped>
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

// While closing, how often connections that became idle are closed.
const IDLE_CLOSE_EVERY_MS = 20

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })

const urlOf = (server: Server) => {
  const { address, port } = server.address() as AddressInfo
  return defaultPublicBaseUrl({ host: address, port }).replace(/\/v1$/, '')
}

/** Listens, then builds the service with the public base URL known (PORT=0); requests in between wait. */
export const startServer = async (
  config: AppConfig,
  build: (config: AppConfig & { readonly publicBaseUrl: string }) => Promise<AnimalStoreService>,
): Promise<RunningServer> => {
  // Until the service is built, requests wait in line; then each goes straight to the app.
  let handle: Handler | undefined
  const waiting: Array<() => void> = []
  const ready = (app: Handler) => {
    handle = app
    for (const serve of waiting.splice(0)) serve()
  }
  let draining = false
  // While draining, every answer closes its connection so keep-alive clients go elsewhere; decided where the
  // head is written (`res.end` calls `writeHead`), so a request costs no listener.
  class DrainingResponse extends ServerResponse {
    override writeHead(
      statusCode: number,
      message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      if (draining && !this.headersSent) this.setHeader('Connection', 'close')
      return typeof message === 'string'
        ? super.writeHead(statusCode, message, headers)
        : super.writeHead(statusCode, headers ?? message)
    }
  }
  // The requests of a connection one at a time, in order: a pipelined burst waits its turn (inOrder).
  const inTurn = pipelinesInOrder(() => logger())
  const serve: Handler = inTurn((req, res) => {
    if (handle !== undefined) handle(req, res)
    else waiting.push(() => handle?.(req, res))
  })
  const server = createServer(
    {
      // A client that sends its headers or body byte by byte cannot hold a connection forever.
      ...listenerTimeouts(config),
      ...APP_ANSWERS_EVERY_REQUEST,
      maxHeaderSize: 16 * 1024,
      ServerResponse: DrainingResponse,
    },
    serve,
  )
  server.keepAliveTimeout = config.keepAliveTimeoutMs
  // A client that does not read its answers no longer holds its connection for ever.
  endStalledConnections(server, config)
  // What ends the requests the grace did not see finish: each is logged as cut, then its connection closed.
  const cutConnections = connectionCutter(server)
  // What closes, once the listener is, the idle connections: kept alive, or open and silent since 1 s.
  const closeIdle = idleConnectionCloser(server)
  // What node would answer with a bare status line (a request its parser refuses, an unknown Expect, a
  // CONNECT, no Host) gets the app's Error body too.
  answerEveryRequest(server, serve)
  await listen(server, config.port, config.host)
  // From now on a server error (such as EMFILE on accept) is logged and serving goes on: without a listener,
  // the next one would end the process.
  let service: AnimalStoreService | undefined
  let early: ReturnType<typeof createLogger> | undefined
  const logger = () => service?.logger ?? (early ??= createLogger(config))
  const onServerError = (error: Error) =>
    logger().error({ err: error }, 'the HTTP server reported an error; it goes on serving')
  server.on('error', onServerError)
  capConnections(server, config.maxConnections, logger)
  const { port } = server.address() as AddressInfo
  const url = urlOf(server)
  const publicBaseUrl = config.publicBaseUrl ?? defaultPublicBaseUrl({ host: config.host, port })
  let metricsServer: Server | undefined
  try {
    service = await build({ ...config, publicBaseUrl })
    // METRICS_PORT: /metrics on a listener of its own, which only monitoring should reach.
    if (service.operationsApp !== undefined && config.metricsPort !== undefined) {
      const operations = inTurn(service.operationsApp.callback())
      metricsServer = createServer({ ...listenerTimeouts(config), ...APP_ANSWERS_EVERY_REQUEST }, operations)
      answerEveryRequest(metricsServer, operations)
      capConnections(metricsServer, config.maxConnections, logger)
      endStalledConnections(metricsServer, config)
      await listen(metricsServer, config.metricsPort, config.host)
      metricsServer.on('error', onServerError)
    }
  } catch (error) {
    server.close()
    metricsServer?.close()
    if (service !== undefined) await service.close()
    throw error
  }
  const running = service
  ready(running.app.callback())

  const shutDown = async (): Promise<Stopped> => {
    draining = true
    running.lifecycle.drain()
    await wait(config.shutdownDelayMs)

    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    closeIdle()
    // A connection that becomes idle once the listener is closed is closed soon after (one whose
    // answer began before draining may not carry `Connection: close`).
    const idleCloser = setInterval(closeIdle, IDLE_CLOSE_EVERY_MS).unref()
    void closed.finally(() => clearInterval(idleCloser))
    // Scrapes have nothing to wait for: their listener closes with the public one.
    metricsServer?.close()
    metricsServer?.closeAllConnections()
    // The grace bounds the requests in flight, nothing else: once it is over, the connections still open are
    // closed, and only those with a request under way count (an idle one, not yet closed, is no failure,
    // even at SHUTDOWN_GRACE_MS=0).
    await within(closed, config.shutdownGraceMs)
    const cut = cutConnections()
    // The last usage counts and closing the pool come after, within a time of their own.
    const storageClosed = await within(running.close(), STORAGE_CLOSE_MS)
    if (!storageClosed)
      running.logger.warn(
        { storageCloseMs: STORAGE_CLOSE_MS },
        'the storage did not close in time: the last usage counts may be lost',
      )
    return { outcome: cut > 0 ? 'grace-exceeded' : storageClosed ? 'clean' : 'close-timed-out', cut }
  }
  let stopping: Promise<Stopped> | undefined
  return {
    server,
    service: running,
    url,
    publicBaseUrl,
    ...(metricsServer === undefined ? {} : { metricsUrl: urlOf(metricsServer) }),
    stop: () => (stopping ??= shutDown()),
  }
}
