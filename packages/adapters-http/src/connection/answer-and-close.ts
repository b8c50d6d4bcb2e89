import { ServerResponse, type IncomingMessage } from 'node:http'
import { Socket } from 'node:net'

/** Ends a connection as soon as its answer is written: for a client too slow to be owed a lingering close. */
export const closeAtOnce = (socket: Socket): void => {
  socket.end()
  // node's own, not the lingering close answerEveryRequest puts on each connection.
  Socket.prototype.destroySoon.call(socket)
}

/**
 * Has `handle` answer `req` on a socket node's server no longer serves (a CONNECT's, or one whose request its
 * parser refused), then ends the connection with `close`: one answer, no keep-alive.
 */
export const answerAndClose = (
  req: IncomingMessage,
  socket: Socket,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  close: (socket: Socket) => void,
): void => {
  const res = new ServerResponse(req)
  res.shouldKeepAlive = false
  res.assignSocket(socket)
  res.on('finish', () => {
    res.detachSocket(socket)
    close(socket)
  })
  handle(req, res)
}
