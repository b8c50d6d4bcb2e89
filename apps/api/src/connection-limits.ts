import { inOrder, MAX_PIPELINED, MAX_PIPELINED_BYTES } from '@pets/adapters-http'
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { AppConfig } from './config.js'
import type { Logger } from './log/logger.js'

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
 * How long a connection may go without a byte read or written while a request is under way (node's
 * `server.timeout`; between requests, KEEP_ALIVE_TIMEOUT_MS): one and a half times HEADERS_TIMEOUT_MS (15 s),
 * at least 5 s (more than the 3 s a lingering close waits). node checks an answer being written again after
 * as long before it gives up (a write that moved meanwhile is no stall), so a stalled one is ended within
 * twice this: 30 s.
 */
export const stalledAfterMs = (config: Pick<AppConfig, 'headersTimeoutMs'>): number =>
  Math.max(5_000, Math.round(1.5 * config.headersTimeoutMs))

/**
 * Ends a connection on which nothing moved for stalledAfterMs. A client that stops reading its answers (its
 * receive window closed) held its connection for ever: node has no time limit on writing an answer, and four
 * pipelined GETs of the docs page's script (1.7 MB each, no key needed) filled the kernel's send buffer (4 MB),
 * held too. One whose answer is stuck so is reset, which frees that buffer at once (it will never be read);
 * any other is destroyed, as node does by default.
 */
export const endStalledConnections = (server: Server, config: Pick<AppConfig, 'headersTimeoutMs'>): void => {
  server.timeout = stalledAfterMs(config)
  server.on('timeout', (socket: Socket) => {
    if (socket.writableLength > 0) socket.resetAndDestroy()
    else socket.destroy()
  })
}

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
 * connection closed for a pipeline over MAX_PIPELINED (or MAX_PIPELINED_BYTES waiting on all) is counted into
 * a warn line a second at most.
 */
export const pipelinesInOrder = (logger: () => Logger): ((handler: Handler) => Handler) => {
  const mebibytes = MAX_PIPELINED_BYTES / 2 ** 20
  const onOverflow = countedEverySecond((count) =>
    logger().warn(
      { closed: count, maxPipelined: MAX_PIPELINED, maxPipelinedBytes: MAX_PIPELINED_BYTES },
      `connections closed: more than ${MAX_PIPELINED} pipelined requests waiting, or ${mebibytes} MiB on all`,
    ),
  )
  return (handler) => inOrder(handler, { onOverflow })
}
