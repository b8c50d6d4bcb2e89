import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** How long a connection goes on reading a body its answer left unread, at most. */
export const LINGER_MS = 3_000
/** How many bytes of such a body it reads and drops, at most; past them it stops reading until LINGER_MS. */
export const LINGER_BYTES = 16 * 1024 * 1024

type End = ServerResponse['end']

/**
 * Lets an answer that leaves the body unread (413, 401, 415, 400) reach a client still sending it, as
 * nginx's `lingering_close`: closing with bytes arriving would reset the connection, and a reset makes the
 * client's system drop the answer it has not read yet. The rest is read and dropped, `LINGER_BYTES` at most
 * (a client that writes its whole body before it reads, then reads its answer, as Python's http.client: at
 * 256 KiB one writing 4 MiB was reset, its answer unread); past them the connection is
 * no longer read, so TCP holds the client's writes back without a byte more of work here, but it stays
 * open until `LINGER_MS`, so that a client that reads while it writes (node, fetch, curl) reads its answer
 * before the close: closing at once reset an upload of 20 MiB before its 413 was read. Call it before the
 * answer ends, on a closing answer.
 */
export const lingerAfterAnswer = (res: ServerResponse): void => {
  // The end in place now (node's, or a wrapper someone put on this response) ends it in the end.
  const end = res.end as (...args: Array<unknown>) => ServerResponse
  res.end = function (this: ServerResponse, ...args: Array<unknown>): ServerResponse {
    this.end = end as End
    const req = this.req
    if (req.complete || req.destroyed) return end.apply(this, args)
    const callback = typeof args.at(-1) === 'function' ? (args.pop() as () => void) : undefined
    const [chunk, encoding] = args as [string | Buffer | undefined, BufferEncoding | undefined]
    if (chunk === undefined || chunk === null) this.flushHeaders()
    else if (encoding === undefined) this.write(chunk)
    else this.write(chunk, encoding)
    dropRestOfBody(this, req, callback)
    return this
  } as End
}

// The ends of the answers whose request's body is still being read and dropped (dropRestOfBody).
const dropping = new WeakMap<object, () => void>()

/**
 * Ends an answer lingerAfterAnswer holds while it drops its request's body, as if that body had ended: for a
 * body node's parser refused (answer-client-error.ts), which never will. False when no such answer waits.
 */
export const endDropOf = (res: object): boolean => {
  const end = dropping.get(res)
  end?.()
  return end !== undefined
}

const dropRestOfBody = (res: ServerResponse, req: IncomingMessage, callback: (() => void) | undefined) => {
  const budget = budgetOf(req.socket)
  const until = untilOf(budget)
  let ended = false
  const end = (cut: boolean) => {
    if (ended) return
    ended = true
    dropping.delete(res)
    clearTimeout(timer)
    req.off('data', onData)
    req.off('end', whole)
    req.off('close', whole)
    if (callback === undefined) res.end()
    else res.end(callback)
    // Still sending at LINGER_MS, the client is not one that stops: what it still sends may reset the connection.
    if (cut) req.socket.destroy()
  }
  const onData = (chunk: Buffer) => {
    budget.read += chunk.length
    if (budget.read > LINGER_BYTES) req.pause()
  }
  const whole = () => end(false)
  dropping.set(res, whole)
  const timer = setTimeout(end, until - Date.now(), true)
  req.on('data', onData)
  req.once('end', whole)
  // The client went away: nothing left to read.
  req.once('close', whole)
  req.resume()
}

// What a connection still reads once its answer is out, however many lingers it goes through (a body left
// unread, then bytes refused behind it: closeAfterLinger): until when (LINGER_MS after the first linger
// began), and how many bytes were dropped, those refused while its answer was being made included.
type Budget = { until: number | undefined; read: number }
const budgets = new WeakMap<Duplex, Budget>()
const untilOf = (budget: Budget): number => (budget.until ??= Date.now() + LINGER_MS)
const budgetOf = (socket: Duplex | null | undefined): Budget => {
  let budget = socket === null || socket === undefined ? undefined : budgets.get(socket)
  if (budget === undefined) {
    budget = { until: undefined, read: 0 }
    // A request made in process may have no socket: its budget is its own.
    if (socket !== null && socket !== undefined) budgets.set(socket, budget)
  }
  return budget
}

// Connections closing after their last answer (closeAfterLinger).
const lingering = new WeakSet<Duplex>()

// Counts bytes dropped on a lingering connection; past LINGER_BYTES it is no longer read.
const dropped = (socket: Duplex, bytes: number) => {
  const budget = budgetOf(socket)
  budget.read += bytes
  if (budget.read > LINGER_BYTES) socket.pause()
}

/**
 * Counts what node's parser refused on a connection whose answer is still being made (a request it refused,
 * which the app answers, or one refused behind requests whose answers come first): the parser goes on reading
 * the connection meanwhile, refusing each packet, for as long as the answer takes (a key lookup on a slow
 * store). They count against LINGER_BYTES with what the connection drops after its answer; past it, it is
 * no longer read.
 */
export const droppedMeanwhile = (error: { rawPacket?: unknown }, socket: Duplex): void => {
  if (Buffer.isBuffer(error.rawPacket)) dropped(socket, error.rawPacket.length)
}

/**
 * Whether a connection is closing after its last answer (closeAfterLinger); if so, a refusal of node's parser
 * on it is what its client still sends, dropped (a reset ends it). node's parser, once it has refused a
 * request, refuses each later packet of its connection: it reads them, here counted.
 */
export const lingeringRefusal = (error: { code?: string; rawPacket?: unknown }, socket: Duplex): boolean => {
  if (!lingering.has(socket)) return false
  if (error.code === 'ECONNRESET') socket.destroy()
  else if (Buffer.isBuffer(error.rawPacket)) dropped(socket, error.rawPacket.length)
  return true
}

/**
 * Closes a connection whose last answer is written, where node's server no longer closes it (a CONNECT's, one
 * whose request its parser refused; `parserReads` unless node let go of it, as of a CONNECT's) or would close it
 * at once: as lingerAfterAnswer, not under the feet of a client still sending. Its end is sent at once (the
 * answer is all there is), what the client still sends is read and dropped, `LINGER_BYTES` at most, and the
 * connection is closed once the client has ended its side too, else `LINGER_MS` after the answer (one budget
 * of time and bytes a connection: a body lingerAfterAnswer dropped, then bytes refused behind it, took
 * `LINGER_MS` twice). Closing at once reset
 * fetch's upload of 16 MiB with a method node does not know, and any upload that went on after such an
 * answer, before the answer was read. With `lastWords`, the end waits for the client's, or LINGER_MS, and
 * goes with them (HTTP/2's GOAWAY: http2-preface.ts).
 */
export const closeAfterLinger = (
  socket: Socket,
  { parserReads, lastWords }: { readonly parserReads: boolean; readonly lastWords?: Buffer },
): void => {
  if (lingering.has(socket) || socket.destroyed) return
  lingering.add(socket)
  const end = () => {
    if (socket.writableEnded) return
    if (lastWords === undefined) socket.end()
    else socket.end(lastWords)
  }
  // Still sending at LINGER_MS, the client is not one that stops: what it still sends may reset the connection.
  const budget = budgetOf(socket)
  const timer = setTimeout(
    () => {
      end()
      socket.destroy()
    },
    untilOf(budget) - Date.now(),
  )
  socket.once('close', () => clearTimeout(timer))
  const close = () => {
    end()
    if (socket.writableFinished) socket.destroy()
    else socket.once('finish', () => socket.destroy())
  }
  if (lastWords === undefined) end()
  if (socket.readableEnded) return void close()
  // Before node's own listener, which ends the socket as the client's end comes: the last words go first.
  socket.prependOnceListener('end', close)
  // Where node's parser no longer reads the connection (a CONNECT's), its bytes come here; else its refusals
  // of them come to lingeringRefusal.
  if (!parserReads) socket.on('data', (chunk: Buffer) => dropped(socket, chunk.length))
  // Past LINGER_BYTES already, it stays unread until LINGER_MS.
  if (budget.read <= LINGER_BYTES) socket.resume()
}
