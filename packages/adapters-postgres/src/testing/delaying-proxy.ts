import { startPostgresProxy, type PostgresProxy } from './postgres-proxy.js'

// The end of a connection's startup: ReadyForQuery, 'Z' and its length, 5.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5])

/**
 * A TCP proxy to `target` that delays the server's answers by `delayMs` once a connection has started: each
 * query takes that long, as on a busy database, while connecting does not. `url` is `target` through it.
 */
export const startDelayingProxy = (target: string, delayMs: number): Promise<PostgresProxy> =>
  startPostgresProxy(target, () => {
    let started = false
    return {
      toClient: (chunk, send) => {
        if (started) setTimeout(() => send(chunk), delayMs)
        else {
          started = chunk.includes(READY_FOR_QUERY)
          send(chunk)
        }
      },
      serverClosed: (closeClient) => void setTimeout(closeClient, delayMs),
    }
  })
