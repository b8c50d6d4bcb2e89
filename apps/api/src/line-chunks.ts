import { fstatSync } from 'node:fs'

/**
 * The most bytes a write(2) to a pipe puts in at once, never mixed with another process's write (PIPE_BUF,
 * 4096 on Linux). The workers of WEB_CONCURRENCY and their primary share one standard output: a larger
 * write to a pipe that is full is taken in parts, and another process's lines came in between, cutting lines.
 */
export const ATOMIC_WRITE_BYTES = 4096

/**
 * The most bytes a write of the log to `fd` may carry: ATOMIC_WRITE_BYTES where other processes write to the
 * same pipe or socket (`processes` > 1: WEB_CONCURRENCY), else a whole batch at once. Writes of 4 KiB go out
 * one a turn of the event loop, slower than one process logs under load (list 20 in memory: 18,600 against
 * 22,000 requests/s, and 220-280 MiB of lines waiting, against 100 MiB of RSS), so only where they must.
 */
export const logWriteBytes = (fd: number, processes: number): number => {
  if (processes <= 1) return Number.POSITIVE_INFINITY
  try {
    const stat = fstatSync(fd)
    return stat.isFIFO() || stat.isSocket() ? ATOMIC_WRITE_BYTES : Number.POSITIVE_INFINITY
  } catch {
    return ATOMIC_WRITE_BYTES
  }
}

/**
 * Where the write of `data` that starts at `offset` ends: after the last whole line that fits in `most`
 * bytes, or after the one line that is longer than that (which no write can keep whole).
 */
export const lineChunkEnd = (data: Buffer, offset: number, most = ATOMIC_WRITE_BYTES): number => {
  if (data.length - offset <= most) return data.length
  const last = data.lastIndexOf(0x0a, offset + most - 1)
  if (last >= offset) return last + 1
  const next = data.indexOf(0x0a, offset + most)
  return next < 0 ? data.length : next + 1
}
