import { EventEmitter } from 'node:events'
import { write, writeSync } from 'node:fs'

// Waits `ms` without returning to the event loop: for a synchronous write to a full pipe.
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

// The one line a failed log gets, straight to fd 2: process.stderr would emit an 'error' of its own.
const reportFailure = (error: NodeJS.ErrnoException) => {
  try {
    writeSync(
      2,
      `animal-store: the log cannot be written (${error.code ?? error.message}); its lines are dropped\n`,
    )
  } catch {
    // stderr is gone too: nowhere left to say it.
  }
}

// A process that ends by itself (its event loop empty) writes what waits: one listener for all.
const open = new Set<LineBuffer>()
process.on('exit', () => {
  for (const buffer of open) buffer.flushSync()
})

/**
 * pino's destination for JSON lines on a file descriptor (stdout). Lines gather in an array,
 * costing a push each, and go out in one write(2) of everything gathered, without blocking the
 * event loop: when `minBytes` wait, and at the latest every `flushMs`. One write at a time; what
 * comes meanwhile waits for the next. A full pipe (EAGAIN) is tried again a moment later. Lines
 * of many items, such as answered requests, can be made later, together (`defer`).
 *
 * pino's own asynchronous destination (sonic-boom 4) measures the bytes of the whole chunk it is
 * filling on every line, so while a write is under way each line costs more than the last; under
 * load that was a fifth of a request's CPU and most of its p99 (bench/RESULTS.md). This keeps the
 * same contract that flushLogs reads: `_writing` while a write is under way, 'drain' once none
 * is and nothing is due, and `flushSync()` for the rest at exit.
 *
 * A write that fails for good ends the buffer, never the process: it drops its lines from then on,
 * and emits 'error' to whoever listens. EPIPE, a reader that went away (`| head -n 1`), is no
 * failure, as for pino's own destination; any other error gets one line on stderr.
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

  constructor(
    private readonly fd: number,
    private readonly minBytes: number,
    flushMs: number,
  ) {
    super()
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
   * Takes items whose lines `line(item, time)` makes later (`time`: when the item came, in ms
   * since the epoch): at the end of the event loop's turn, all those of the turn together, or
   * sooner when another line comes or lines are written, so each keeps its place.
   *
   * Under load, making a request's line in the turn it is answered, between other requests' work,
   * cost over a socket several times what the same code costs in a loop (bench/RESULTS.md).
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

  /** Writes what waits now, synchronously; for exit, once no write is under way. */
  flushSync(): void {
    this.makeDeferred()
    if (this.destroyed || this.lines.length === 0) return
    const data = this.take()
    for (let offset = 0; offset < data.length;) {
      try {
        offset += writeSync(this.fd, data, offset)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN')
          return this.fail(error as NodeJS.ErrnoException)
        sleepSync(10)
      }
    }
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
    this.lines.push(line)
    this.bytes += line.length
    if (!this._writing && this.bytes >= this.minBytes) this.writeBatch()
  }

  private take(): Buffer {
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
    write(this.fd, data, offset, data.length - offset, null, (error, written) => {
      if (error !== null) {
        if (error.code === 'EAGAIN') return void setTimeout(() => this.send(data, offset), 5)
        return this.fail(error)
      }
      if (offset + written < data.length) return this.send(data, offset + written)
      this._writing = false
      if (this.bytes >= this.minBytes) this.writeBatch()
      else this.emit('drain')
    })
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
