import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/** A TCP proxy on 127.0.0.1 that a test can cut (connections reset), stall (silence) and restore. */
export const startTcpProxy = async (target: { host: string; port: number }) => {
  let mode: 'open' | 'cut' | 'stall' = 'open'
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = createServer((client) => {
    track(client)
    if (mode === 'cut') return client.destroy()
    if (mode === 'stall') return // accepted, never answered
    const upstream = connect(target.port, target.host)
    track(upstream)
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const dropAll = () => sockets.forEach((s) => s.destroy())
  return {
    port,
    /** Resets every connection and every new one: the database is gone. */
    cut: () => {
      mode = 'cut'
      dropAll()
    },
    /** Drops the connections and leaves new ones unanswered: the database hangs. */
    stall: () => {
      mode = 'stall'
      dropAll()
    },
    restore: () => {
      mode = 'open'
    },
    close: async () => {
      dropAll()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
