import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

type Mode = 'open' | 'cut' | 'stall' | 'pause' | 'silent'

/** One client connection and its way to the target; a dead link passes nothing, ever again. */
type Link = { dead: boolean }

/**
 * A TCP proxy on 127.0.0.1 that a test can cut (connections reset), stall (silence), pause (hold
 * every byte, losing none), silence (a frozen host, an expired NAT entry) and restore. Bytes are
 * forwarded by hand, so a pause holds for sure and a silence passes nothing.
 */
export const startTcpProxy = async (target: { host: string; port: number }) => {
  let mode: Mode = 'open'
  const sockets = new Set<Socket>()
  const links = new Set<Link>()
  const held: Array<() => void> = []
  // The connections that have bytes held by a pause, either way.
  const holding = new Set<Link>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  // Forwards `from` to `to`; while paused, chunks wait in order and go on at restore; on a dead
  // link they are dropped.
  const forward = (link: Link, from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (link.dead) return
      if (mode === 'pause') {
        holding.add(link)
        held.push(() => link.dead || to.write(chunk))
      } else to.write(chunk)
    })
  // Half-open allowed, so that a closing peer on a dead link is not answered either: neither its
  // FIN nor its reset reaches the other side. On a live link both pass, as they would.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    track(client)
    if (mode === 'cut') return client.destroy()
    const link: Link = { dead: mode === 'silent' }
    if (mode === 'stall' || link.dead) {
      // accepted, never answered
      client.on('end', () => link.dead || client.end())
      return
    }
    links.add(link)
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true })
    track(upstream)
    forward(link, client, upstream)
    forward(link, upstream, client)
    client.on('end', () => link.dead || upstream.end())
    upstream.on('end', () => link.dead || client.end())
    client.on('close', () => link.dead || upstream.destroy())
    upstream.on('close', () => {
      links.delete(link)
      if (!link.dead) client.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const dropAll = () => sockets.forEach((s) => s.destroy())
  const release = () => {
    holding.clear()
    return held.splice(0)
  }
  return {
    port,
    /** Resets every connection and every new one: the database is gone. */
    cut: () => {
      mode = 'cut'
      release()
      dropAll()
    },
    /** Drops the connections and leaves new ones unanswered: the database hangs. */
    stall: () => {
      mode = 'stall'
      release()
      dropAll()
    },
    /** Keeps every connection, and holds every byte until `restore`: the database is slow. */
    pause: () => {
      mode = 'pause'
    },
    /** How many connections have bytes held by the pause: each is a query, or its answer, waiting. */
    waiting: () => holding.size,
    /**
     * Nothing passes any more, either way, on every connection open now or opened before
     * `restore`, and nothing ends them: their sockets stay open at both ends, as behind a host
     * that froze or a NAT entry that expired. They stay dead after `restore`; only connections
     * opened after it work.
     */
    silence: () => {
      mode = 'silent'
      release()
      for (const link of links) link.dead = true
      links.clear()
    },
    /** Lets traffic through again, first what a pause held; connections a silence killed stay dead. */
    restore: () => {
      mode = 'open'
      release().forEach((send) => send())
    },
    close: async () => {
      dropAll()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
