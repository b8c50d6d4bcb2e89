import { execFileSync } from 'node:child_process'
import type * as Fs from 'node:fs'
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LineBuffer } from '../src/log/line-buffer.js'
import { ATOMIC_WRITE_BYTES, lineChunkEnd, logWriteBytes } from '../src/log/line-chunks.js'
import { droppedLinesLine, MAX_WAITING_BYTES } from '../src/log/line-notices.js'

// What LineBuffer writes to fd 2 lands here instead; every other write goes through. The sizes of the
// asynchronous writes are noted by fd.
const { stderr, writes } = vi.hoisted(() => ({
  stderr: [] as Array<string>,
  writes: new Map<number, Array<number>>(),
}))
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>()
  const writeSync = (fd: number, ...rest: Array<unknown>) => {
    if (fd !== 2) return (fs.writeSync as (fd: number, ...rest: Array<unknown>) => number)(fd, ...rest)
    stderr.push(String(rest[0]))
    return String(rest[0]).length
  }
  const write = (fd: number, ...rest: Array<unknown>) => {
    writes.set(fd, [...(writes.get(fd) ?? []), rest[2] as number])
    return (fs.write as (fd: number, ...rest: Array<unknown>) => void)(fd, ...rest)
  }
  return { ...fs, writeSync, write }
})

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'line-buffer-test-'))
  stderr.length = 0
  writes.clear()
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

// The write end of a pipe whose read end is closed, as stdout is once `| head -n 1` has exited.
const brokenPipe = () => {
  const fifo = join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
  closeSync(reader)
  return writer
}

describe('LineBuffer on a stream that fails', () => {
  // No test listens to 'error' but the second: an 'error' without a listener would end the process.
  it('drops its lines once the reader of its pipe is gone (EPIPE), says nothing, and never throws', async () => {
    const fd = brokenPipe()
    const buffer = new LineBuffer(fd, 1, 10_000)
    let made = 0
    const deferred = buffer.defer((n: number) => `{"n":${(made++, n)}}\n`)
    expect(buffer.write('{"msg":"first"}\n')).toBe(true)
    await vi.waitFor(() => expect(buffer.destroyed).toBe(true))
    expect(buffer._writing).toBe(false)
    // Later lines cost a test: not buffered, not written, a deferred one not even made.
    expect(buffer.write('{"msg":"second"}\n')).toBe(false)
    expect(deferred(1)).toBe(false)
    buffer.flush()
    buffer.flushSync()
    buffer.end()
    expect(made).toBe(0)
    expect(stderr).toEqual([])
    closeSync(fd)
  })

  it('does not throw from flushSync at exit when the pipe broke since the last write', () => {
    const fd = brokenPipe()
    const buffer = new LineBuffer(fd, 1 << 20, 10_000)
    const errors: Array<NodeJS.ErrnoException> = []
    buffer.on('error', (error: NodeJS.ErrnoException) => errors.push(error))
    buffer.write('{"msg":"waiting"}\n')
    expect(() => buffer.flushSync()).not.toThrow()
    expect(errors.map((e) => e.code)).toEqual(['EPIPE'])
    expect(buffer.destroyed).toBe(true)
    expect(stderr).toEqual([])
    buffer.end()
    closeSync(fd)
  })

  it('keeps any other failure from ending the process, and says it in one line on stderr', async () => {
    const file = join(dir, 'read-only')
    writeFileSync(file, '')
    // Writing to a descriptor opened for reading fails with EBADF, as a closed stdout would.
    const fd = openSync(file, 'r')
    const buffer = new LineBuffer(fd, 1, 10_000)
    buffer.write('{"msg":"first"}\n')
    await vi.waitFor(() => expect(buffer.destroyed).toBe(true))
    buffer.write('{"msg":"second"}\n')
    expect(() => buffer.flushSync()).not.toThrow()
    buffer.end()
    expect(stderr).toEqual(['animal-store: the log cannot be written (EBADF); its lines are dropped\n'])
    closeSync(fd)
  })
})

// A FIFO full to the brim: every write now answers EAGAIN. Closed by `close`.
const fullPipe = () => {
  const fifo = join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
  const page = Buffer.alloc(4096, '\n')
  expect(() => {
    for (;;) writeSync(fd, page)
  }).toThrow(expect.objectContaining({ code: 'EAGAIN' }))
  // What the reader finds now, once it reads again.
  const read = () => {
    const chunk = Buffer.alloc(1 << 17)
    try {
      return chunk.toString('utf8', 0, readSync(reader, chunk))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return ''
      throw error
    }
  }
  return { fd, read, close: () => [fd, reader].forEach((open) => closeSync(open)) }
}

describe('LineBuffer at exit, on a pipe whose reader has stopped reading', () => {
  it('waits for the reader a bounded time, then drops its lines and says so on stderr', () => {
    const pipe = fullPipe()
    try {
      const buffer = new LineBuffer(pipe.fd, 1 << 20, 10_000, 200)
      buffer.write('{"msg":"stopped"}\n')
      buffer.flushSync()
      expect(buffer.destroyed).toBe(true)
      expect(stderr).toEqual([
        'animal-store: the log cannot be written (its reader took nothing for 0.2 s at exit); its lines are dropped\n',
      ])
      buffer.end()
    } finally {
      pipe.close()
    }
  })

  it('drops a write under way and what waits when the exit gives up on it, saying why once', async () => {
    const pipe = fullPipe()
    try {
      const buffer = new LineBuffer(pipe.fd, 1, 10_000)
      buffer.write('{"msg":"first"}\n')
      expect(buffer._writing).toBe(true)
      buffer.write('{"msg":"second"}\n')
      buffer.abandon('its reader took nothing for 10 s at exit')
      buffer.abandon('again')
      expect(buffer.destroyed).toBe(true)
      expect(buffer.write('{"msg":"third"}\n')).toBe(false)
      // Nothing is written at exit after the part of a line left, nor retried once the reader reads again (a
      // retry sent before abandon() has ended meanwhile, with EAGAIN, since the pipe was still full).
      buffer.flushSync()
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(pipe.read().trim()).toBe('')
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(pipe.read()).toBe('')
      expect(stderr).toEqual([
        'animal-store: the log cannot be written (its reader took nothing for 10 s at exit); its lines are dropped\n',
      ])
      buffer.end()
    } finally {
      pipe.close()
    }
  })
})

describe('LineBuffer behind a reader that has stopped reading', () => {
  it('keeps at most maxWaitingBytes of lines, drops the others, and says how many where they would have been', async () => {
    const pipe = fullPipe()
    try {
      const buffer = new LineBuffer(pipe.fd, 1, 10_000, undefined, undefined, {
        maxWaitingBytes: 1000,
        droppedLine: (count) => `{"droppedLines":${count}}\n`,
      })
      // 100 characters each, the newline included.
      const line = (n: number) => `{"n":${String(n).padStart(3, '0')},"pad":"${'x'.repeat(81)}"}\n`
      buffer.write(line(0))
      // That write waits for the reader (EAGAIN, tried again every 5 ms): what comes now waits in memory.
      expect(buffer._writing).toBe(true)
      for (let n = 1; n <= 100; n++) buffer.write(line(n))
      let text = ''
      await vi.waitFor(() => {
        text += pipe.read()
        expect(text).toContain('droppedLines')
      })
      buffer.write(line(101))
      buffer.flush()
      await vi.waitFor(() => {
        text += pipe.read()
        expect(text).toContain('"n":101')
      })
      // Ten lines of 100 characters fill the 1,000 allowed; the next 90 are dropped, and counted.
      const written = text.split('\n').filter((l) => l !== '')
      expect(written).toEqual([
        ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => line(n).trimEnd()),
        '{"droppedLines":90}',
        line(101).trimEnd(),
      ])
      buffer.end()
    } finally {
      pipe.close()
    }
  })
})

describe('the line of dropped lines', () => {
  it("is a warn line as pino writes one, with the logger's base fields and the count", () => {
    const line = droppedLinesLine('"service":"animal-store","pid":7')(90)
    expect(line.endsWith('}\n')).toBe(true)
    expect(JSON.parse(line)).toEqual({
      level: 40,
      time: expect.any(Number),
      service: 'animal-store',
      pid: 7,
      droppedLines: 90,
      maxWaitingBytes: MAX_WAITING_BYTES,
      msg: "log lines dropped: standard output's reader fell behind",
    })
  })
})

describe('LineBuffers of several processes on one pipe (the workers of WEB_CONCURRENCY)', () => {
  it('write whole lines at most 4 KiB at once, so that a slow reader never gets one line cut by another', async () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    // Two descriptions of the pipe, as each process has its own; non-blocking, as node leaves stdout.
    const fds = [0, 1].map(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
    const buffers = fds.map((fd) => new LineBuffer(fd, 1 << 20, 10_000, undefined, ATOMIC_WRITE_BYTES))
    const expected: Array<string> = []
    buffers.forEach((buffer, b) => {
      for (let n = 0; n < 200; n++) {
        const line = JSON.stringify({ buffer: b, n, pad: 'x'.repeat(300 + ((n * 37) % 400)) })
        expected.push(line)
        buffer.write(`${line}\n`)
      }
    })
    const total = expected.reduce((bytes, line) => bytes + line.length + 1, 0)
    let text = ''
    try {
      buffers.forEach((buffer) => buffer.flush())
      // A reader slower than the writers: the pipe is full most of the time.
      const chunk = Buffer.alloc(1500)
      while (text.length < total) {
        try {
          text += chunk.toString('latin1', 0, readSync(reader, chunk))
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
        }
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
    } finally {
      buffers.forEach((buffer) => buffer.end())
      ;[...fds, reader].forEach((fd) => closeSync(fd))
    }
    const lines = text.split('\n').slice(0, -1)
    const known = new Set(expected)
    expect(lines.filter((line) => !known.has(line)).length, 'lines cut by another').toBe(0)
    expect(lines.toSorted()).toEqual(expected.toSorted())
  })
})

describe('LineBuffer writing 4 KiB at a time to a pipe (WEB_CONCURRENCY)', () => {
  // A pipe with room for 64 KiB, its reader reading nothing yet; `writer` blocking or not.
  const pipe = (flags: number) => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    return { reader, writer: openSync(fifo, constants.O_WRONLY | flags) }
  }
  // What the pipe holds now (nothing: EAGAIN).
  const readNow = (reader: number) => {
    const chunk = Buffer.alloc(1 << 16)
    try {
      return chunk.toString('latin1', 0, readSync(reader, chunk))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      return ''
    }
  }
  const lines = (buffer: LineBuffer, bytes: number) => {
    let written = 0
    for (let n = 0; written < bytes; n++) {
      const line = `${JSON.stringify({ n, pad: 'x'.repeat(200 + ((n * 37) % 300)) })}\n`
      buffer.write(line)
      written += line.length
    }
    return written
  }

  // One write a turn of the event loop: a worker under load (10,000 lines/s) fell behind its log, 600 MiB of
  // lines waiting after a minute while its reader (`| cat`) kept up.
  it('puts in at once as many whole-line writes as a non-blocking pipe has room for', async () => {
    const { reader, writer } = pipe(constants.O_NONBLOCK)
    const buffer = new LineBuffer(writer, 1 << 30, 60_000, undefined, ATOMIC_WRITE_BYTES)
    try {
      const written = lines(buffer, 40_000)
      buffer.flush()
      // Read before any turn of the event loop: what the pipe holds was written within flush().
      const text = readNow(reader)
      expect(text.length).toBe(written)
      expect(
        text
          .split('\n')
          .slice(0, -1)
          .every((line) => line.startsWith('{"n":')),
      ).toBe(true)
      expect(buffer._writing).toBe(false)
    } finally {
      // Its descriptor is closed only once no write of it is under way: the next test may get its number.
      await vi.waitFor(() => expect(buffer._writing).toBe(false))
      buffer.end()
      ;[reader, writer].forEach((fd) => closeSync(fd))
    }
  })

  it('never waits on a blocking pipe that is full: its writes stay asynchronous', async () => {
    const { reader, writer } = pipe(0)
    const buffer = new LineBuffer(writer, 1 << 30, 60_000, undefined, ATOMIC_WRITE_BYTES)
    try {
      // Twice what the pipe holds: a synchronous write would wait here for a reader that reads nothing.
      const written = lines(buffer, 1 << 17)
      buffer.flush()
      expect(buffer._writing).toBe(true)
      let text = ''
      while (text.length < written) {
        text += readNow(reader)
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      expect(text.length).toBe(written)
    } finally {
      buffer.end()
      ;[reader, writer].forEach((fd) => closeSync(fd))
    }
  })
})

describe('the size of a write of the log', () => {
  // One write a turn of the event loop: in writes of 4 KiB, one process's log under load fell behind it.
  it('is a whole batch unless processes share the pipe, and then at most 4 KiB of whole lines', async () => {
    const batch = (writeBytes?: number) => {
      const fd = openSync('/dev/null', 'w')
      writes.delete(fd)
      const buffer = new LineBuffer(fd, 1 << 30, 60_000, undefined, writeBytes)
      for (let n = 0; n < 2_000; n++) buffer.write(`${JSON.stringify({ n, pad: 'x'.repeat(480) })}\n`)
      buffer.flush()
      return new Promise<Array<number>>((resolve) =>
        buffer.once('drain', () => {
          buffer.end()
          closeSync(fd)
          resolve(writes.get(fd) ?? [])
        }),
      )
    }
    expect(await batch()).toHaveLength(1)
    const atomic = await batch(ATOMIC_WRITE_BYTES)
    expect(atomic.length).toBeGreaterThan(200)
    expect(Math.max(...atomic)).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES)
  })

  it('is 4 KiB for a pipe or a socket shared by several processes, and a whole batch otherwise', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const pipe = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)
    const file = openSync(join(dir, 'log'), 'w')
    const devNull = openSync('/dev/null', 'w')
    try {
      expect([pipe, file, devNull].map((fd) => logWriteBytes(fd, 2))).toEqual([4096, Infinity, Infinity])
      expect([pipe, file, devNull].map((fd) => logWriteBytes(fd, 1))).toEqual([Infinity, Infinity, Infinity])
    } finally {
      ;[reader, pipe, file, devNull].forEach((fd) => closeSync(fd))
    }
  })
})

describe('lineChunkEnd', () => {
  const data = Buffer.from(`${'a'.repeat(3000)}\n${'b'.repeat(2000)}\n${'c'.repeat(5000)}\nd\n`)
  it('ends a write after the last whole line within 4 KiB, or after a line longer than that', () => {
    expect(lineChunkEnd(data, 0)).toBe(3001)
    expect(lineChunkEnd(data, 3001)).toBe(5002)
    expect(lineChunkEnd(data, 5002)).toBe(10_003)
    expect(lineChunkEnd(data, 10_003)).toBe(data.length)
    // The rest of a line a write took in part.
    expect(lineChunkEnd(data, 5500)).toBe(10_003)
  })
})
