import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** What serves a request: an app's `callback()`, or whatever hands requests to it. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void

// Per connection, how many pipelined requests wait for their turn (only connections that pipeline have one).
const waiting = new WeakMap<Socket, number>()

/**
 * The most requests a connection may have waiting behind the one under way; past it the connection is
 * closed (RFC 9112 section 9.3.2: a client retries the requests a closed connection did not answer).
 * Browsers and curl do not pipeline; a load tester's pipeline is a few to a few dozen deep.
 */
export const MAX_PIPELINED = 32

/** What inOrder tells its host: a connection closed for too deep a pipeline. */
export type InOrderOptions = { readonly onOverflow?: (() => void) | undefined }

/**
 * Serves the requests of one connection one at a time, in their order. node hands over every request of
 * a pipelined burst at once (a 64 KiB read holds hundreds of small GETs), and answers them in order: each
 * answer waits, whole, in memory until those before it are written. A client that pipelines and never
 * reads made the service hold hundreds of pages per connection (gigabytes, then a heap out of memory), and
 * on PostgreSQL made the pool time out (503s with the database healthy). Here a request that came behind
 * one under way starts only when node gives its answer the connection (its response's `socket` event): a
 * connection holds one answer in the making. node goes on reading a connection whatever its pipeline (its
 * parser reads the socket itself, and restarts reading after each request), so what waits is bounded by
 * count: past MAX_PIPELINED waiting requests the connection is closed. A request that is not pipelined (its
 * response has the connection) costs one field read.
 */
export const inOrder =
  (handle: Handler, { onOverflow }: InOrderOptions = {}): Handler =>
  (req, res) => {
    if (res.socket !== null) return handle(req, res)
    const socket = req.socket
    if (socket.destroyed) return
    const count = (waiting.get(socket) ?? 0) + 1
    // What waits is held whole (the request, its response): a pipeline that never ends is closed.
    if (count > MAX_PIPELINED) {
      socket.destroy()
      return onOverflow?.()
    }
    waiting.set(socket, count)
    res.once('socket', () => {
      const left = (waiting.get(socket) ?? 1) - 1
      if (left > 0) waiting.set(socket, left)
      else waiting.delete(socket)
      handle(req, res)
    })
  }
