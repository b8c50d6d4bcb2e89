import { ServerResponse, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Has `handle` answer `req` on a socket node's server no longer serves (a CONNECT's, or one whose request its
 * parser refused), then ends the connection: one answer, no keep-alive.
 */
export const answerAndClose = (
  req: IncomingMessage,
  socket: Socket,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): void => {
  const res = new ServerResponse(req)
  res.shouldKeepAlive = false
  res.assignSocket(socket)
  res.on('finish', () => {
    res.detachSocket(socket)
    socket.end()
    socket.destroySoon()
  })
  handle(req, res)
}
