import { constants, fstatSync, readFileSync, writeSync } from 'node:fs'

/**
 * The most bytes a write(2) to a pipe puts in at once, never mixed with another process's write (PIPE_BUF,
 * 4096 on Linux). The workers of WEB_CONCURRENCY and their primary share one standard output: a larger
 * write to a pipe that is full is taken in parts, and another process's lines came in between, cutting lines.
 */
export const ATOMIC_WRITE_BYTES = 4096

/**
 * The most bytes a write of the log to `fd` may carry: ATOMIC_WRITE_BYTES where other processes write to the
 * same pipe or socket (`processes` > 1: WEB_CONCURRENCY), else a whole batch at once. Asynchronous writes of
 * 4 KiB go out one a turn of the event loop, slower than one process logs under load (list 20 in memory: 18,600
 * against 22,000 requests/s, and 220-280 MiB of lines waiting, against 100 MiB of RSS), so only where they
 * must, and there as many at once as the descriptor takes when it never waits (writeChunksNow).
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

/**
 * Whether a write(2) to `fd` returns at once when the pipe or socket has no room (O_NONBLOCK, as node leaves a
 * pipe or socket it opened for process.stdout, in every process that shares it): read from /proc/self/fdinfo,
 * so false where there is none (not Linux), and for a descriptor that would wait.
 */
export const writesWithoutWaiting = (fd: number): boolean => {
  try {
    const flags = readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1')
      .split('\n')
      .find((line) => line.startsWith('flags:'))
    return flags !== undefined && (Number.parseInt(flags.slice(6).trim(), 8) & constants.O_NONBLOCK) !== 0
  } catch {
    return false
  }
}

/** The most bytes writeChunksNow writes in one call before it lets the event loop turn. */
export const WRITE_NOW_BYTES = 256 * 1024

/**
 * Writes `data` from `offset`, synchronously, in writes of whole lines of at most `most` bytes (lineChunkEnd),
 * for as long as the descriptor takes them at once and up to WRITE_NOW_BYTES; returns where it stopped (at
 * EAGAIN: no room). Only for a descriptor that writesWithoutWaiting: one that waits would stop the event loop.
 */
export const writeChunksNow = (fd: number, data: Buffer, offset: number, most: number): number => {
  const until = Math.min(data.length, offset + WRITE_NOW_BYTES)
  while (offset < until) {
    try {
      offset += writeSync(fd, data, offset, lineChunkEnd(data, offset, most) - offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return offset
      throw error
    }
  }
  return offset
}

// Waits `ms` without returning to the event loop: for a synchronous write to a full pipe.
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Writes all of `data` synchronously (at exit), in writes of whole lines of at most `most` bytes, waiting for a
 * full pipe's reader while it takes something at least every `limitMs`; returns why it gave up, if it did.
 */
export const writeAllSync = (
  fd: number,
  data: Buffer,
  most: number,
  limitMs: number,
): NodeJS.ErrnoException | undefined => {
  let giveUpAt = Date.now() + limitMs
  for (let offset = 0; offset < data.length;) {
    try {
      offset += writeSync(fd, data, offset, lineChunkEnd(data, offset, most) - offset)
      giveUpAt = Date.now() + limitMs
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return error as NodeJS.ErrnoException
      if (Date.now() >= giveUpAt) return new Error(`its reader took nothing for ${limitMs / 1000} s at exit`)
      sleepSync(10)
    }
  }
  return undefined
}
