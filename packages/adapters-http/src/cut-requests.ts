import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { HttpContext } from './request-state.js'

// The request a response answers, set as serveRequests takes it: a connection reaches its response, not
// the Koa context the log line needs. Null once a cut logged it. Never cleared otherwise: an answer that
// was made (`writableEnded`) has had its line.
const ANSWERING = Symbol('the request this response answers')
type Answering = ServerResponse & { [ANSWERING]?: HttpContext | null }
type Connection = Socket & { _httpMessage?: ServerResponse | null }

/** How an app writes the line (and ends the span) of a request a cut took from it. */
export type CutLine = (ctx: HttpContext) => void

// Per app, since the logger and the observer are the app's; looked up only when cutting.
const cutLines = new WeakMap<object, CutLine>()

/** Says how `app` logs a request cut from it: serveRequests' line with `outcome: 'cut'`. */
export const logsCutsWith = (app: object, line: CutLine): void => void cutLines.set(app, line)

/** Records on its response that `ctx` is the request it answers: one field written per request. */
export const answering = (ctx: HttpContext): void => {
  ;(ctx.res as Answering)[ANSWERING] = ctx
}

/** Whether a cut has logged this response's request: its middleware, ending later, must not log it again. */
export const wasCut = (res: ServerResponse): boolean => (res as Answering)[ANSWERING] === null

/**
 * Watches the connections of `server` (one Set entry and one listener per connection, nothing per request)
 * and returns the cut a shutdown makes once its grace is over: every connection is destroyed, and each
 * request still in flight on one is counted; the one whose answer was not made yet is logged first, by
 * its app, as cut (an answer already made, still being sent, has its line). Returns how many it cut: idle
 * connections count for nothing. A pipelined request waiting behind another is neither logged nor counted:
 * node keeps it where nothing else reaches.
 */
export const connectionCutter = (server: Server): (() => number) => {
  const open = new Set<Connection>()
  function forget(this: Connection) {
    open.delete(this)
  }
  server.on('connection', (socket: Connection) => {
    open.add(socket)
    socket.on('close', forget)
  })
  return () => {
    let cut = 0
    for (const socket of open) {
      // Node's own: the response under way, detached once it has finished (guard: private-api-guards.test.ts).
      const res = socket._httpMessage as Answering | null | undefined
      if (res !== null && res !== undefined) {
        cut++
        const ctx = res[ANSWERING]
        if (!res.writableEnded && ctx !== undefined && ctx !== null) {
          res[ANSWERING] = null
          cutLines.get(ctx.app)?.(ctx)
        }
      }
      socket.destroy()
    }
    return cut
  }
}
