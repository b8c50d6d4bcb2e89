import { randomUUID } from 'node:crypto'

/** One request of a load run: when it started, and how it ended. */
export type Sent = {
  readonly id: string
  readonly startedAt: number
  endedAt?: number
  status?: number
  /** The parsed body, when the answer came complete. */
  body?: unknown
  retryAfter?: string | null
  error?: string
}

/**
 * Keeps `concurrency` requests in flight, each loop sending the next as soon as its last one is
 * answered, until `stop()`; a loop also ends when its request fails to connect (the listener is
 * gone). Every request has an X-Request-Id of its own, to find it in the service's log.
 */
export const startLoad = (concurrency: number, send: (requestId: string) => Promise<Response>) => {
  const sent: Array<Sent> = []
  let stopped = false
  const loop = async () => {
    while (!stopped) {
      const entry: Sent = { id: `load-${randomUUID()}`, startedAt: Date.now() }
      sent.push(entry)
      try {
        const res = await send(entry.id)
        entry.status = res.status
        entry.retryAfter = res.headers.get('retry-after')
        entry.body = JSON.parse(await res.text()) as unknown
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause
        entry.error = cause?.code ?? cause?.message ?? String(error)
        if (entry.error === 'ECONNREFUSED') return
      } finally {
        entry.endedAt = Date.now()
      }
    }
  }
  const loops = Array.from({ length: concurrency }, loop)
  return {
    sent,
    /** Requests sent and not yet answered. */
    inFlight: () => sent.filter((s) => s.endedAt === undefined),
    /** Whether a request sent at `at` (a Date.now() instant) or later has ended: a phase has been tried. */
    endedSince: (at: number) => sent.some((s) => s.startedAt >= at && s.endedAt !== undefined),
    /** Resolves once every loop has ended by itself (every connection refused). */
    done: () => Promise.all(loops).then(() => sent),
    stop: async () => {
      stopped = true
      await Promise.all(loops)
      return sent
    },
  }
}
