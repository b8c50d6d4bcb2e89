import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppConfig } from './config.js'
import type { AnimalStoreService } from './create-service.js'

/** A listening service and the way to stop it. */
export type RunningServer = {
  readonly server: Server
  readonly url: string
  /** Stops accepting, lets in-flight requests finish within the grace, closes the service. */
  readonly stop: () => Promise<'clean' | 'grace-exceeded'>
}

/** Listens on the configured host and port with timeouts that keep slow clients from holding on. */
export const startServer = async (
  service: AnimalStoreService,
  config: Pick<AppConfig, 'host' | 'port' | 'shutdownGraceMs'>,
): Promise<RunningServer> => {
  const server = createServer(
    {
      // A client that sends its headers or body byte by byte cannot hold a connection forever.
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      maxHeaderSize: 16 * 1024,
    },
    service.app.callback(),
  )
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const host = address.includes(':') ? `[${address}]` : address

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
  return { server, url: `http://${host}:${port}`, stop }
}
