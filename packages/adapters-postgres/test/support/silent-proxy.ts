import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 whose path can go silent: from `silence()` on, nothing passes on any
 * connection open then or opened before `restore()`, and nothing closes them (a frozen host, a NAT
 * entry that expired); they stay dead after `restore()`, and only new connections work again.
 */
export const startSilentProxy = async (target: { host: string; port: number }) => {
  let silent = false
  const sockets = new Set<Socket>()
  const live = new Set<{ dead: boolean }>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = createServer({ allowHalfOpen: true }, (client) => {
    track(client)
    const link = { dead: silent }
    if (link.dead) return
    live.add(link)
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true })
    track(upstream)
    client.on('data', (chunk: Buffer) => link.dead || upstream.write(chunk))
    upstream.on('data', (chunk: Buffer) => link.dead || client.write(chunk))
    client.on('end', () => link.dead || upstream.end())
    upstream.on('end', () => link.dead || client.end())
    client.on('close', () => link.dead || upstream.destroy())
    upstream.on('close', () => {
      live.delete(link)
      if (!link.dead) client.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    /** `url` with its host and port replaced by the proxy's. */
    through: (url: string) => {
      const u = new URL(url)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.toString()
    },
    silence: () => {
      silent = true
      for (const link of live) link.dead = true
      live.clear()
    },
    restore: () => {
      silent = false
    },
    close: async () => {
      sockets.forEach((s) => s.destroy())
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
