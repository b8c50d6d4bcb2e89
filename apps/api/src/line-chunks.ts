/**
 * The most bytes a write(2) to a pipe puts in at once, never mixed with another process's write (PIPE_BUF,
 * 4096 on Linux). The workers of WEB_CONCURRENCY and their primary share one standard output: a larger
 * write to a pipe that is full is taken in parts, and another process's lines came in between, cutting lines.
 */
export const ATOMIC_WRITE_BYTES = 4096

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
