import { outageCause, type OutageCause, type OutageLinesOptions, type StorageLog } from './storage-log.js'

// The lines of the pool's connections and of the LISTEN connection: one an event, not one a try.

const BROKEN = 'PostgreSQL connections broke; the pool replaces them'

/** How a burst of broken connections is told. */
export type BrokenConnectionLinesOptions = {
  /** How long the first break waits for the others of its burst before its line; 1000 ms unless given. */
  readonly windowMs?: number
}

/**
 * Broken connections of the pool as one `warn` line a burst, not one each: a restart, a failover or a
 * `pg_terminate_backend` of the service's sessions breaks every idle connection at once (seven lines with pg's
 * stack, before). The first break waits `windowMs` for the rest, then one line says how many broke
 * (`connections`), with the first's `code` and `cause`. `flush` writes a burst under way at once (at close).
 */
export const brokenConnectionLines = (
  log: StorageLog,
  options: BrokenConnectionLinesOptions = {},
): { readonly onBroken: (error: unknown) => void; readonly flush: () => void } => {
  const windowMs = options.windowMs ?? 1000
  let burst: { connections: number; readonly first: OutageCause; readonly timer: NodeJS.Timeout } | undefined
  const flush = () => {
    if (burst === undefined) return
    const { connections, first, timer } = burst
    burst = undefined
    clearTimeout(timer)
    log('warn', BROKEN, { connections, ...first })
  }
  return {
    onBroken: (error) => {
      if (burst !== undefined) return void burst.connections++
      // Unreferenced: a burst under way keeps no process alive; close flushes it.
      burst = { connections: 1, first: outageCause(error), timer: setTimeout(flush, windowMs).unref() }
    },
    flush,
  }
}

const NOT_HEARING = 'API keys: not hearing of changes; each key is looked up in PostgreSQL meanwhile'
const STILL_NOT_HEARING = 'API keys: still not hearing of changes; each key is looked up in PostgreSQL'
const HEARING = 'API keys: hearing of changes again; keys are checked in memory'

/**
 * The lines of the LISTEN connection for API keys: its loss is one `warn` line ("not hearing of changes"),
 * not one for each try to connect again (every 0.25 to 10 s, each with a stack, before), then one a minute at
 * most while it stays lost (`attempts`), and its return one `info` line ("hearing of changes again", with
 * `downForMs` and `attempts`), which nothing said before.
 */
export const listenLines = (
  log: StorageLog,
  options: Pick<OutageLinesOptions, 'now' | 'remindEveryMs'> = {},
): { readonly down: (error: unknown) => void; readonly up: () => void } => {
  const now = options.now ?? (() => performance.now())
  const remindEveryMs = options.remindEveryMs ?? 60_000
  let lost: { readonly since: number; lastLineAt: number; attempts: number } | undefined
  return {
    down: (error) => {
      const at = now()
      if (lost === undefined) {
        lost = { since: at, lastLineAt: at, attempts: 0 }
        return log('warn', NOT_HEARING, outageCause(error))
      }
      lost.attempts++
      if (at - lost.lastLineAt < remindEveryMs) return
      lost.lastLineAt = at
      log('warn', STILL_NOT_HEARING, {
        forMs: Math.round(at - lost.since),
        attempts: lost.attempts,
        ...outageCause(error),
      })
    },
    up: () => {
      if (lost === undefined) return
      log('info', HEARING, { downForMs: Math.round(now() - lost.since), attempts: lost.attempts + 1 })
      lost = undefined
    },
  }
}
