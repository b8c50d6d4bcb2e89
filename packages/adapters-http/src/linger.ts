import type { IncomingMessage, ServerResponse } from 'node:http'

/** How long a connection goes on reading a body its answer left unread, at most. */
export const LINGER_MS = 3_000
/** How many bytes of such a body it reads and drops, at most; past them it stops reading until LINGER_MS. */
export const LINGER_BYTES = 256 * 1024

type End = ServerResponse['end']

/**
 * Lets an answer that leaves the body unread (413, 401, 415, 400) reach a client still sending it, as
 * nginx's `lingering_close`: closing with bytes arriving would reset the connection, and a reset makes the
 * client's system drop the answer it has not read yet. The rest is read and dropped, `LINGER_BYTES` at most
 * (a client that writes its whole body before it reads, then reads its answer); past them the connection is
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

const dropRestOfBody = (res: ServerResponse, req: IncomingMessage, callback: (() => void) | undefined) => {
  let read = 0
  let ended = false
  const end = (cut: boolean) => {
    if (ended) return
    ended = true
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
    read += chunk.length
    if (read > LINGER_BYTES) req.pause()
  }
  const whole = () => end(false)
  const timer = setTimeout(end, LINGER_MS, true)
  req.on('data', onData)
  req.once('end', whole)
  // The client went away: nothing left to read.
  req.once('close', whole)
  req.resume()
}
