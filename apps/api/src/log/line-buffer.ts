import { EventEmitter } from 'node:events'
import { write } from 'node:fs'
import { lineChunkEnd, writeAllSync, writeChunksNow, writesWithoutWaiting } from './line-chunks.js'
import { droppedLinesLine, MAX_WAITING_BYTES, reportFailure, type WaitingLimits } from './line-notices.js'

/** How long a synchronous write (at exit) waits for a full pipe's reader before it drops the lines. */
export const SYNC_WRITE_LIMIT_MS = 10_000

// A process that ends by itself (its event loop empty) writes what waits: one listener for all.
const open = new Set<LineBuffer>()
process.on('exit', () => {
  for (const buffer of open) buffer.flushSync()
})

/**
 * pino's destination for JSON lines on a file descriptor: lines gather in an array and go out when `minBytes`
 * wait, at the latest every `flushMs`, in non-blocking write(2)s of whole lines, each of at most `writeBytes`
 * (4 KiB where processes share a pipe, which takes such a write whole: line-chunks.ts; as many at once as a
 * descriptor that never waits has room for, else one a turn of the event loop); EAGAIN is retried, and while a
 * write waits, at most MAX_WAITING_BYTES of lines wait behind it: those past them are dropped, counted. It
 * keeps the contract flushLogs reads (`_writing`, 'drain', `flushSync()`) without sonic-boom's cost per line
 * (ARCHITECTURE.md, 'Made by hand, on purpose', row "line buffer"). A failed write ends the buffer, never the
 * process; EPIPE (a reader gone) is no failure, any other error gets one line on stderr.
 */
export class LineBuffer extends EventEmitter {
  /** True while a write is under way. */
  _writing = false
  /** Set once a write failed for good: lines are dropped from then on, deferred ones never made. */
  destroyed = false
  private lines: Array<string> = []
  private bytes = 0
  private readonly timer: NodeJS.Timeout
  // What makes the deferred lines, in the order the items came; one each `defer`.
  private readonly makers: Array<() => void> = []
  private turnEnd = false
  // 4 KiB writes to a descriptor that never waits: as many at once as it takes (one a turn fell behind).
  private readonly writeNow: boolean
  // Lines dropped since the last batch, for lack of room: its line says how many.
  private dropped = 0

  constructor(
    private readonly fd: number,
    private readonly minBytes: number,
    flushMs: number,
    private readonly syncLimitMs = SYNC_WRITE_LIMIT_MS,
    // The most bytes one write carries (line-chunks.ts: logWriteBytes); a whole batch unless given.
    private readonly writeBytes = Number.POSITIVE_INFINITY,
    private readonly limits: WaitingLimits = {},
  ) {
    super()
    this.writeNow = Number.isFinite(writeBytes) && writesWithoutWaiting(fd)
    this.timer = setInterval(() => this.flush(), flushMs).unref()
    open.add(this)
    // Always one listener: an 'error' that nobody listens to would end the process.
    this.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reportFailure(error)
    })
  }

  /** Takes one line; it is written with the next batch. */
  write(line: string): boolean {
    if (this.destroyed) return false
    this.makeDeferred()
    this.append(line)
    return true
  }

  /**
   * Takes items whose lines `line(item, time)` makes at the end of the turn, all together, or sooner when
   * another line comes (each keeps its place); `time` is when the item came. Why deferred: ARCHITECTURE.md,
   * 'Made by hand, on purpose', row "metrics shortcuts".
   */
  defer<T>(line: (item: T, time: number) => string): (item: T) => boolean {
    let items: Array<T> = []
    let times: Array<number> = []
    this.makers.push(() => {
      if (items.length === 0) return
      const made = items
      const at = times
      items = []
      times = []
      for (let i = 0; i < made.length; i++) this.append(line(made[i]!, at[i]!))
    })
    return (item) => {
      if (this.destroyed) return false
      if (!this.turnEnd) {
        this.turnEnd = true
        setImmediate(this.makeDeferred)
      }
      items.push(item)
      times.push(Date.now())
      return true
    }
  }

  /** Starts writing what waits, unless a write is under way (its end writes the rest). */
  flush(): void {
    this.makeDeferred()
    if (!this._writing && this.lines.length > 0) this.writeBatch()
  }

  /**
   * Writes what waits now, synchronously; for exit, once no write is under way. A full pipe is waited for
   * while its reader takes something at least every `syncLimitMs` (the exit's own bound, which no timer can
   * keep while this blocks); past that, the lines are dropped as a failed write's.
   */
  flushSync(): void {
    this.makeDeferred()
    if (this.destroyed || this.lines.length === 0) return
    const failure = writeAllSync(this.fd, this.take(), this.writeBytes, this.syncLimitMs)
    if (failure !== undefined) this.fail(failure)
  }

  /** Drops what waits and what comes, with one line on stderr saying `reason`: for an exit that waits no more. */
  abandon(reason: string): void {
    if (!this.destroyed) this.fail(new Error(reason))
  }

  /** Stops the periodic flush; what waits is written at once. */
  end(): void {
    clearInterval(this.timer)
    open.delete(this)
    this.flush()
  }

  private readonly makeDeferred = (): void => {
    this.turnEnd = false
    for (const make of this.makers) make()
  }

  private append(line: string): void {
    // Items deferred before a failure whose lines are made after it.
    if (this.destroyed) return
    // A reader that stopped must not have every line kept for it: one alone always is.
    if (this.bytes > 0 && this.bytes + line.length > (this.limits.maxWaitingBytes ?? MAX_WAITING_BYTES))
      return void this.dropped++
    this.lines.push(line)
    this.bytes += line.length
    if (!this._writing && this.bytes >= this.minBytes) this.writeBatch()
  }

  private take(): Buffer {
    // Where the dropped lines would have been: after those kept, before those still to come.
    if (this.dropped > 0) this.lines.push((this.limits.droppedLine ?? droppedLinesLine())(this.dropped))
    this.dropped = 0
    const data = Buffer.from(this.lines.join(''))
    this.lines = []
    this.bytes = 0
    return data
  }

  private writeBatch(): void {
    this._writing = true
    this.send(this.take(), 0)
  }

  private send(data: Buffer, offset: number): void {
    // Abandoned meanwhile (abandon): the rest of this batch is dropped with the others.
    if (this.destroyed) return
    if (this.writeNow) {
      try {
        offset = writeChunksNow(this.fd, data, offset, this.writeBytes)
      } catch (error) {
        return this.fail(error as NodeJS.ErrnoException)
      }
      if (offset === data.length) return this.sent()
    }
    const length = lineChunkEnd(data, offset, this.writeBytes) - offset
    write(this.fd, data, offset, length, null, (error, written) => {
      if (error !== null) {
        if (error.code === 'EAGAIN') return void setTimeout(() => this.send(data, offset), 5)
        return this.fail(error)
      }
      if (offset + written < data.length) return this.send(data, offset + written)
      this.sent()
    })
  }

  private sent(): void {
    this._writing = false
    if (this.bytes >= this.minBytes) this.writeBatch()
    else this.emit('drain')
  }

  private fail(error: NodeJS.ErrnoException): void {
    this._writing = false
    this.destroyed = true
    this.lines = []
    this.bytes = 0
    clearInterval(this.timer)
    open.delete(this)
    this.emit('error', error)
  }
}
