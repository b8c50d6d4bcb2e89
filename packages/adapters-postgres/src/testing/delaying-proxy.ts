import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

// The end of a connection's startup: ReadyForQuery, 'Z' and its length, 5.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5])

/** A TCP proxy in front of PostgreSQL that delays its answers, and the URL through it. */
export type DelayingProxy = { readonly url: string; readonly close: () => Promise<void> }

/**
 * A TCP proxy in front of the PostgreSQL of `target` (a connection URL) that delays what the server
 * answers by `delayMs`, in order, once a connection has started: each query then takes that long,
 * as on a busy database, while opening a connection takes no longer than it did. `url` is `target`
 * through the proxy.
 */
export const startDelayingProxy = async (target: string, delayMs: number): Promise<DelayingProxy> => {
  const server = new URL(target)
  const sockets = new Set<Socket>()
  const proxy = createServer((client) => {
    const upstream = connect(Number(server.port || 5432), server.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => socket.destroy())
    }
    let started = false
    client.on('data', (chunk: Buffer) => upstream.write(chunk))
    upstream.on('data', (chunk: Buffer) => {
      if (started) setTimeout(() => client.destroyed || client.write(chunk), delayMs)
      else {
        started = chunk.includes(READY_FOR_QUERY)
        client.write(chunk)
      }
    })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => setTimeout(() => client.destroy(), delayMs))
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const url = new URL(target)
  url.hostname = '127.0.0.1'
  url.port = String((proxy.address() as AddressInfo).port)
  return {
    url: url.toString(),
    close: async () => {
      sockets.forEach((s) => s.destroy())
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    },
  }
}
