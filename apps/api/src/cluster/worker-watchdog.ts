import cluster, { type Worker } from 'node:cluster'

const PING = 'animal-store:ping'
const PONG = 'animal-store:pong'
/** How often the primary asks each worker that listens whether its event loop still turns. */
const PING_EVERY_MS = 1_000
/** After how long without an answer a worker counts as stuck, and is killed. */
export const STUCK_AFTER_MS = 10_000

/** In a worker: answers the primary's pings, from its event loop; a loop that no longer turns answers none. */
export const answerPings = (): void => {
  process.on('message', (message: { type?: unknown } | null) => {
    if (message?.type === PING && process.connected) process.send?.({ type: PONG })
  })
}

/**
 * In the primary: kills (SIGKILL) a worker that has listened and then answered no ping for STUCK_AFTER_MS (a
 * loop without end, a stopped process), after `onStuck`; its exit then replaces it, as any worker that died.
 * Node's round robin hands such a worker one connection more, which waits for ever, and its kept-alive
 * connections wait with it. Returns what stops the watch (at shutdown, whose own timeout kills a worker).
 */
export const watchWorkers = (onStuck: (worker: Worker, silentMs: number) => void): (() => void) => {
  const heard = new Map<Worker, number>()
  const onListening = (worker: Worker) => heard.set(worker, Date.now())
  const onExit = (worker: Worker) => heard.delete(worker)
  const onMessage = (worker: Worker, message: { type?: unknown } | null) => {
    if (message?.type === PONG && heard.has(worker)) heard.set(worker, Date.now())
  }
  cluster.on('listening', onListening).on('exit', onExit).on('message', onMessage)
  const timer = setInterval(() => {
    const now = Date.now()
    for (const [worker, at] of heard) {
      if (now - at < STUCK_AFTER_MS) {
        if (worker.isConnected()) worker.send({ type: PING })
        continue
      }
      heard.delete(worker)
      onStuck(worker, now - at)
      worker.process.kill('SIGKILL')
    }
  }, PING_EVERY_MS).unref()
  return () => {
    clearInterval(timer)
    cluster.off('listening', onListening).off('exit', onExit).off('message', onMessage)
  }
}
