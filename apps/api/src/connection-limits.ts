import type { Server, ServerOptions } from 'node:http'
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

/** Caps `server` at `maxConnections` (node closes each one past it), with a warn line a second at most. */
export const capConnections = (server: Server, maxConnections: number, logger: () => Logger): void => {
  server.maxConnections = maxConnections
  let dropped = 0
  let lineAt = Number.NEGATIVE_INFINITY
  // A line is due: the drops until then are counted into it (none said twice, no line of none).
  let due: NodeJS.Timeout | undefined
  const report = () => {
    due = undefined
    lineAt = Date.now()
    const count = dropped
    dropped = 0
    logger().warn(
      { maxConnections, refused: count },
      `connections refused: MAX_CONNECTIONS (${maxConnections}) are open on this listener`,
    )
  }
  server.on('drop', () => {
    dropped++
    if (due !== undefined) return
    const wait = lineAt + DROP_LINE_EVERY_MS - Date.now()
    if (wait <= 0) report()
    else due = setTimeout(report, wait).unref()
  })
}
