import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

type Mode = 'open' | 'cut' | 'stall' | 'pause'

/**
 * A TCP proxy on 127.0.0.1 that a test can cut (connections reset), stall (silence), pause (hold
 * every byte, losing none) and restore. Bytes are forwarded by hand, so a pause holds for sure.
 */
export const startTcpProxy = async (target: { host: string; port: number }) => {
  let mode: Mode = 'open'
  const sockets = new Set<Socket>()
  const held: Array<() => void> = []
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  // Forwards `from` to `to`; while paused, chunks wait in order and go on at restore.
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (mode === 'pause') held.push(() => to.write(chunk))
      else to.write(chunk)
    })
  const server = createServer((client) => {
    track(client)
    if (mode === 'cut') return client.destroy()
    if (mode === 'stall') return // accepted, never answered
    const upstream = connect(target.port, target.host)
    track(upstream)
    forward(client, upstream)
    forward(upstream, client)
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
      held.length = 0
      dropAll()
    },
    /** Drops the connections and leaves new ones unanswered: the database hangs. */
    stall: () => {
      mode = 'stall'
      held.length = 0
      dropAll()
    },
    /** Keeps every connection, and holds every byte until `restore`: the database is slow. */
    pause: () => {
      mode = 'pause'
    },
    /** Lets traffic through again, first what a pause held. */
    restore: () => {
      mode = 'open'
      held.splice(0).forEach((send) => send())
    },
    close: async () => {
      dropAll()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
