import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/**
 * At shutdown, how long a connection may have been open without sending a byte before it is closed as an idle
 * one is. A client writes its request as soon as its connection opens: one silent for this long is held open
 * ahead of use (a balancer's or a browser's preconnection), and would send nothing the stop waits for.
 */
export const SILENT_CLOSE_MS = 1_000

// When the connection was accepted (performance.now()): one field written per connection.
const ACCEPTED = Symbol('when the connection was accepted')
type Connection = Socket & { [ACCEPTED]?: number }

/**
 * Watches the connections of `server` and returns what a shutdown calls, once its listener is closed, to close
 * the connections that wait for nothing: the idle keep-alive ones (node's `closeIdleConnections`), and those
 * that have not sent a byte in their first SILENT_CLOSE_MS. node counts a connection busy from its accept on
 * (its headers' time runs from there), so one that never sent a request held the stop for the whole
 * SHUTDOWN_GRACE_MS, or until HEADERS_TIMEOUT_MS ended it.
 */
export const idleConnectionCloser = (server: Server): (() => void) => {
  // The connections that have not sent a byte yet, as far as the last call saw.
  const silent = new Set<Connection>()
  function forget(this: Connection) {
    silent.delete(this)
  }
  server.on('connection', (socket: Connection) => {
    socket[ACCEPTED] = performance.now()
    silent.add(socket)
    socket.once('close', forget)
  })
  return () => {
    server.closeIdleConnections()
    const now = performance.now()
    for (const socket of silent)
      if (socket.bytesRead > 0) silent.delete(socket)
      else if (now - (socket[ACCEPTED] ?? now) >= SILENT_CLOSE_MS) socket.destroy()
  }
}
