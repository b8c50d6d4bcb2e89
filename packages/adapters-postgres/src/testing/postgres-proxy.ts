import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** How a proxy passes the bytes of one connection on; each direction forwards as it is unless given. */
export type Relay = {
  /** What the client sent, and how to pass it to the server. */
  readonly toServer?: ((chunk: Buffer, send: (chunk: Buffer) => void) => void) | undefined
  /** What the server answered, and how to pass it to the client. */
  readonly toClient?: ((chunk: Buffer, send: (chunk: Buffer) => void) => void) | undefined
  /** The server closed the connection: how to close the client's (at once unless given). */
  readonly serverClosed?: ((closeClient: () => void) => void) | undefined
}

/** A TCP proxy in front of PostgreSQL: the URL through it, and `close`, which ends every connection. */
export type PostgresProxy = { readonly url: string; readonly close: () => Promise<void> }

/** A TCP proxy on 127.0.0.1 to `target`; each connection's bytes pass through the Relay `relay` makes. */
export const startPostgresProxy = async (target: string, relay: () => Relay): Promise<PostgresProxy> => {
  const server = new URL(target)
  const sockets = new Set<Socket>()
  const proxy = createServer((client) => {
    const upstream = connect(Number(server.port || 5432), server.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => socket.destroy())
    }
    const { toServer, toClient, serverClosed } = relay()
    const sendToServer = (chunk: Buffer) => void upstream.write(chunk)
    const sendToClient = (chunk: Buffer) => void (client.destroyed || client.write(chunk))
    client.on('data', (chunk: Buffer) => (toServer ? toServer(chunk, sendToServer) : sendToServer(chunk)))
    upstream.on('data', (chunk: Buffer) => (toClient ? toClient(chunk, sendToClient) : sendToClient(chunk)))
    client.on('close', () => upstream.destroy())
    const closeClient = () => void client.destroy()
    upstream.on('close', () => (serverClosed ? serverClosed(closeClient) : closeClient()))
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
