import type { Worker } from 'node:cluster'

// Node's cluster messages, as its primary and workers send them (internal/cluster: round_robin_handle.js
// and child.js): the primary hands a connection over with `newconn` and keeps its own handle of it until the
// worker's `ack`, which then closes it (or hands it to another worker when this one no longer listens).
type ClusterMessage = { cmd?: unknown; act?: unknown; seq?: unknown; ack?: unknown } | null
type Handle = { close: () => void }
type Send = (message: unknown, handle?: unknown, ...rest: Array<unknown>) => boolean
const NODE_CLUSTER = 'NODE_CLUSTER'

/**
 * In the primary: the connections node's round robin handed to `worker` that it has not acknowledged. When
 * the worker dies first (a SIGKILL, the OOM killer, a crash between two requests), node never hears back, so
 * it never closes its copy: the client waits for an answer for ever, and the primary holds one descriptor
 * more. Returns what closes them, for the worker's exit (once its channel has ended: every ack heard), and
 * says how many it found at the exit: each client sees its connection reset, as on the connections the worker
 * held, and its request never ran. Reads node's undocumented cluster messages by wrapping the worker's `send`
 * and hearing its `internalMessage` events (test/cluster-handoff.e2e.test.ts, handed-connections.test.ts).
 */
export const handedConnections = (worker: Worker): (() => number) => {
  const waiting = new Map<number, Handle>()
  const child = worker.process as unknown as { send: Send }
  const send = child.send
  child.send = function (this: unknown, message, handle, ...rest) {
    const m = message as ClusterMessage
    if (
      m?.cmd === NODE_CLUSTER &&
      m.act === 'newconn' &&
      typeof m.seq === 'number' &&
      typeof handle === 'object' &&
      handle !== null
    )
      waiting.set(m.seq, handle as Handle)
    return send.call(this, message, handle, ...rest)
  }
  worker.process.on('internalMessage', (message: ClusterMessage) => {
    if (message?.cmd === NODE_CLUSTER && typeof message.ack === 'number') waiting.delete(message.ack)
  })
  const closeWaiting = () => {
    for (const handle of waiting.values()) handle.close()
    waiting.clear()
  }
  return () => {
    const untaken = waiting.size
    // The exit can be heard before the worker's last messages: an ack still in its channel would have node hand
    // a refused connection (accepted: false) to another worker, and a handle closed here made that send fail
    // (EINVAL, an 'error' on the Worker that nobody listens to: the primary's end). The channel's end comes
    // after every message the worker sent.
    if (worker.process.connected) worker.process.once('disconnect', closeWaiting)
    else closeWaiting()
    return untaken
  }
}
