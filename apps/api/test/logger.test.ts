import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { describe, expect, it, vi } from 'vitest'
import { createLogger, flushLogs, LOG_BUFFER_BYTES } from '../src/log/logger.js'
import { memoryLog } from './support/memory-log.js'

describe('the service logger', () => {
  it('writes one JSON line per call, with the service name and the pid', () => {
    const out = memoryLog()
    createLogger({ logLevel: 'info', logFormat: 'json' }, out.stream).info({ answer: 42 }, 'hello')
    const lines = out.text().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      service: 'animal-store',
      pid: process.pid,
      answer: 42,
      msg: 'hello',
    })
  })

  it('redacts Authorization in any case, top level or in headers, and fields named like keys', () => {
    const out = memoryLog()
    const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, out.stream)
    logger.info(
      {
        authorization: 'Bearer secret-1',
        req: { headers: { authorization: 'Bearer secret-2', Authorization: 'Bearer secret-3', host: 'h' } },
        upstream: { request: { headers: { Authorization: 'Bearer secret-4' } } },
        apiKey: 'secret-5',
        config: { API_KEYS: 'secret-6,secret-7' },
      },
      'request',
    )
    const text = out.text()
    expect(text).not.toMatch(/secret-\d/)
    expect(JSON.parse(text)).toMatchObject({
      authorization: '[redacted]',
      req: { headers: { authorization: '[redacted]', Authorization: '[redacted]', host: 'h' } },
      upstream: { request: { headers: { Authorization: '[redacted]' } } },
    })
  })

  it('writes readable lines in the pretty format, redacted all the same', () => {
    const out = memoryLog()
    createLogger({ logLevel: 'info', logFormat: 'pretty' }, out.stream).info(
      { headers: { authorization: 'Bearer secret-1' } },
      'hello there',
    )
    const text = out.text()
    expect(text).toContain('hello there')
    expect(text).toContain('INFO')
    expect(() => JSON.parse(text)).toThrow()
    expect(text).not.toContain('secret-1')
  })

  it('neither writes nor reads the fields of a line below its level', () => {
    const out = memoryLog()
    const logger = createLogger({ logLevel: 'warn', logFormat: 'json' }, out.stream)
    let read = 0
    const fields = {
      get expensive() {
        read++
        return 'x'
      },
    }
    logger.info(fields, 'not written')
    logger.debug(fields, 'not written')
    expect(logger.isLevelEnabled('info')).toBe(false)
    expect(read).toBe(0)
    expect(out.text()).toBe('')
    logger.warn(fields, 'written')
    expect(read).toBe(1)
  })

  it('flushLogs writes every line still in the buffer, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-test-'))
    const file = join(dir, 'log')
    // On the fake clock, until the first line has had 50 ms to go out by any timer.
    vi.useFakeTimers()
    // The service's kind of destination, on a file: asynchronous, buffered.
    const destination = pino.destination({
      fd: openSync(file, 'w'),
      sync: false,
      minLength: LOG_BUFFER_BYTES,
    })
    try {
      const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, destination)
      const read = () =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
      logger.info({ i: 0 }, 'line')
      vi.advanceTimersByTime(50)
      // No write has even started (sonic-boom's `_writing`, which flushLogs reads too).
      expect((destination as unknown as { _writing: boolean })._writing).toBe(false)
      expect(read(), 'one line waits in the buffer').toEqual([])
      vi.useRealTimers()
      // Past LOG_BUFFER_BYTES: asynchronous writes start, and the last lines wait in the buffer.
      // (A write held by a full pipe is waited for: logging.e2e.test.ts stalls the reader.)
      for (let i = 1; i < 200; i++) logger.info({ i, padding: 'x'.repeat(60) }, 'line')
      await flushLogs(logger)
      expect(read().map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
        Array.from({ length: 200 }, (_, i) => i),
      )
    } finally {
      vi.useRealTimers()
      destination.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
