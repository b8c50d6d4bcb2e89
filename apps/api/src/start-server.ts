import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppConfig } from './config.js'
import { defaultPublicBaseUrl } from './config.js'
import type { AnimalStoreService } from './create-service.js'

/** A listening service and the way to stop it. */
export type RunningServer = {
  readonly server: Server
  readonly service: AnimalStoreService
  /** Where the server listens, such as http://127.0.0.1:3000. */
  readonly url: string
  /** What the service writes in Location and Link headers. */
  readonly publicBaseUrl: string
  /** Stops accepting, lets in-flight requests finish within the grace, closes the service. */
  readonly stop: () => Promise<'clean' | 'grace-exceeded'>
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * Listens on the configured host and port, then builds the service with the public base URL
 * known (with PORT=0 the port is known only now). A request that arrives in between waits.
 */
export const startServer = async (
  config: AppConfig,
  build: (config: AppConfig & { readonly publicBaseUrl: string }) => Promise<AnimalStoreService>,
): Promise<RunningServer> => {
  let ready: (handler: Handler) => void = () => {}
  const handler = new Promise<Handler>((resolve) => (ready = resolve))
  const server = createServer(
    {
      // A client that sends its headers or body byte by byte cannot hold a connection forever.
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => void handler.then((handle) => handle(req, res)),
  )
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const url = defaultPublicBaseUrl({ host: address, port }).replace(/\/v1$/, '')
  const publicBaseUrl = config.publicBaseUrl ?? defaultPublicBaseUrl({ host: config.host, port })
  let service: AnimalStoreService
  try {
    service = await build({ ...config, publicBaseUrl })
  } catch (error) {
    server.close()
    throw error
  }
  ready(service.app.callback())

  const stop = async (): Promise<'clean' | 'grace-exceeded'> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    let timer: NodeJS.Timeout | undefined
    const outcome = await Promise.race([
      closed.then(() => 'clean' as const),
      new Promise<'grace-exceeded'>((resolve) => {
        timer = setTimeout(() => resolve('grace-exceeded'), config.shutdownGraceMs)
      }),
    ])
    clearTimeout(timer)
    if (outcome === 'grace-exceeded') server.closeAllConnections()
    await service.close()
    return outcome
  }
  return { server, service, url, publicBaseUrl, stop }
}
