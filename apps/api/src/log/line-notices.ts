import { writeSync } from 'node:fs'

// What a LineBuffer says of its own troubles: a log it can no longer write, and lines it had no room for.

/**
 * The most characters of lines a LineBuffer keeps waiting for its reader (16 Mi: about 40,000 request lines,
 * a few seconds of a busy process); past them it drops lines and counts them. A reader that stopped (a
 * stalled log collector) let every request of a stranger's flood add its line: 12 MiB of RSS a second at
 * 10,600 unauthenticated requests a second, without end.
 */
export const MAX_WAITING_BYTES = 16 * 1024 * 1024

/** The line that says how many lines were dropped, written where they would have been. */
export type DroppedLine = (count: number) => string

/** How many characters of lines may wait for a LineBuffer's reader, and the line that says how many were dropped. */
export type WaitingLimits = {
  readonly maxWaitingBytes?: number | undefined
  readonly droppedLine?: DroppedLine | undefined
}

/**
 * The dropped lines' line, as pino writes a `warn` (level 40) with the logger's `bindings` (its base fields
 * as JSON members, such as `"service":"animal-store","pid":7`).
 */
export const droppedLinesLine =
  (bindings = ''): DroppedLine =>
  (count) =>
    `{"level":40,"time":${Date.now()}${bindings === '' ? '' : `,${bindings}`},"droppedLines":${count},` +
    `"maxWaitingBytes":${MAX_WAITING_BYTES},"msg":"log lines dropped: standard output's reader fell behind"}\n`

/** The one line a failed log gets, straight to fd 2: process.stderr would emit an 'error' of its own. */
export const reportFailure = (error: NodeJS.ErrnoException): void => {
  try {
    writeSync(
      2,
      `animal-store: the log cannot be written (${error.code ?? error.message}); its lines are dropped\n`,
    )
  } catch {
    // stderr is gone too: nowhere left to say it.
  }
}
