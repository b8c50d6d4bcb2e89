import { inOrder, MAX_PIPELINED } from '@pets/adapters-http'
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http'
import type { AppConfig } from './config.js'
import type { Logger } from './logger.js'

// At most one line about refused connections this often, with how many were refused meanwhile.
const DROP_LINE_EVERY_MS = 1_000

/**
 * A listener's time limits: headers within HEADERS_TIMEOUT_MS, the request within 30 s, checked every half
 * of the headers' limit (node's 30 s default let a slow client keep its socket up to 40 s).
 */
export const listenerTimeouts = (config: Pick<AppConfig, 'headersTimeoutMs'>): ServerOptions => ({
  headersTimeout: config.headersTimeoutMs,
  requestTimeout: Math.max(30_000, config.headersTimeoutMs),
  connectionsCheckingInterval: Math.max(50, Math.floor(config.headersTimeoutMs / 2)),
})

/**
 * Counts events and reports how many came, at once for the first and then once a second at most: the
 * events until a report is written are counted into it (none said twice, no report of none).
 */
export const countedEverySecond = (report: (count: number) => void): (() => void) => {
  let counted = 0
  let lineAt = Number.NEGATIVE_INFINITY
  let due: NodeJS.Timeout | undefined
  const write = () => {
    due = undefined
    lineAt = Date.now()
    const count = counted
    counted = 0
    report(count)
  }
  return () => {
    counted++
    if (due !== undefined) return
    const wait = lineAt + DROP_LINE_EVERY_MS - Date.now()
    if (wait <= 0) write()
    else due = setTimeout(write, wait).unref()
  }
}

/** Caps `server` at `maxConnections` (node closes each one past it), with a warn line a second at most. */
export const capConnections = (server: Server, maxConnections: number, logger: () => Logger): void => {
  server.maxConnections = maxConnections
  server.on(
    'drop',
    countedEverySecond((count) =>
      logger().warn(
        { maxConnections, refused: count },
        `connections refused: MAX_CONNECTIONS (${maxConnections}) are open on this listener`,
      ),
    ),
  )
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * Serves each connection's requests in turn (adapters-http's inOrder), for every listener it wraps; a
 * connection closed for a pipeline over MAX_PIPELINED is counted into a warn line a second at most.
 */
export const pipelinesInOrder = (logger: () => Logger): ((handler: Handler) => Handler) => {
  const onOverflow = countedEverySecond((count) =>
    logger().warn(
      { closed: count, maxPipelined: MAX_PIPELINED },
      `connections closed: more than ${MAX_PIPELINED} pipelined requests waiting`,
    ),
  )
  return (handler) => inOrder(handler, { onOverflow })
}
