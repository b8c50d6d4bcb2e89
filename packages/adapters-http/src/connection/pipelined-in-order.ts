import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** What serves a request: an app's `callback()`, or whatever hands requests to it. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * The most requests a connection may have waiting behind the one under way; past it the connection is
 * closed (RFC 9112 section 9.3.2: a client retries the requests a closed connection did not answer).
 * Browsers and curl do not pipeline; a load tester's pipeline is a few to a few dozen deep.
 */
export const MAX_PIPELINED = 32

/**
 * The most bytes the waiting requests of all the connections of one listener hold together: their heads (the
 * target and the header lines, up to 16 KiB each) and WAITING_REQUEST_BYTES each besides. Past it, the
 * connection that sends one more is closed, as for too deep a pipeline: 32 heads of 15 KB behind a request
 * on a slow store held 0.96 MiB of heap a connection, without a bound on connections (MAX_CONNECTIONS, 10,000).
 */
export const MAX_PIPELINED_BYTES = 32 * 1024 * 1024
/** What a waiting request is counted for besides its head: its request, its response, its listener. */
export const WAITING_REQUEST_BYTES = 1024

/** What inOrder tells its host: a connection closed for too deep a pipeline (or too many bytes waiting). */
export type InOrderOptions = {
  readonly onOverflow?: (() => void) | undefined
  /** MAX_PIPELINED_BYTES unless given. */
  readonly maxWaitingBytes?: number | undefined
}

// What waits on one connection; `closed` once the connection is, its bytes given back.
type Line = { count: number; bytes: number; closed: boolean }

const bytesOf = (req: IncomingMessage): number => {
  let bytes = WAITING_REQUEST_BYTES + (req.url?.length ?? 0)
  for (const part of req.rawHeaders ?? []) bytes += part.length
  return bytes
}

/**
 * Serves the requests of one connection one at a time, in their order. node hands over every request of
 * a pipelined burst at once (a 64 KiB read holds hundreds of small GETs), and answers them in order: each
 * answer waits, whole, in memory until those before it are written. A client that pipelines and never
 * reads made the service hold hundreds of pages per connection (gigabytes, then a heap out of memory), and
 * on PostgreSQL made the pool time out (503s with the database healthy). Here a request that came behind
 * one under way starts only when node gives its answer the connection (its response's `socket` event): a
 * connection holds one answer in the making. node goes on reading a connection whatever its pipeline (its
 * parser reads the socket itself, and restarts reading after each request), so what waits is bounded: past
 * MAX_PIPELINED waiting requests on a connection, or MAX_PIPELINED_BYTES on all, the connection is closed. A
 * request that is not pipelined (its response has the connection) costs a field read and a lookup. A request
 * that comes on a connection closing after an answer that said `Connection: close` is never served.
 */
export const inOrder = (
  handle: Handler,
  { onOverflow, maxWaitingBytes = MAX_PIPELINED_BYTES }: InOrderOptions = {},
): Handler => {
  // Per connection, what waits for its turn (only connections that pipeline have one).
  const waiting = new WeakMap<Socket, Line>()
  let held = 0
  return (req, res) => {
    const given = res.socket
    if (given !== null) {
      // node gives the connection at once to a request that comes when no answer holds it, also on a connection
      // closing after an answer that said Connection: close (node ended its side), or one no longer writable (a
      // reset, or destroyed meanwhile), whose parser still hands over what it has read: ahead of the requests
      // that waited behind that answer, which node never gives the connection. Answered, it was out of turn, and
      // its end failed node's check of the order of answers (ERR_INTERNAL_ASSERTION: the process ended). RFC
      // 9112 section 9.6: no request after a close is processed; nor can any answer reach that client.
      if (given.writable === false || (waiting.get(given)?.count ?? 0) > 0) return
      return handle(req, res)
    }
    const socket = req.socket
    if (socket.destroyed) return
    const bytes = bytesOf(req)
    let line = waiting.get(socket)
    // What waits is held whole (the request, its response): a pipeline that never ends is closed.
    if ((line?.count ?? 0) >= MAX_PIPELINED || held + bytes > maxWaitingBytes) {
      socket.destroy()
      return onOverflow?.()
    }
    if (line === undefined) {
      const opened: Line = (line = { count: 0, bytes: 0, closed: false })
      waiting.set(socket, opened)
      // Closed with requests still waiting: they never get their turn, and hold nothing any more.
      socket.once('close', () => {
        opened.closed = true
        held -= opened.bytes
      })
    }
    const own = line
    own.count++
    own.bytes += bytes
    held += bytes
    res.once('socket', () => {
      own.count--
      own.bytes -= bytes
      if (!own.closed) held -= bytes
      handle(req, res)
    })
  }
}
