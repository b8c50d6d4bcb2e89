import { EventEmitter } from 'node:events'
import type { Server } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { capConnections, stalledAfterMs } from '../src/connection-limits.js'
import type { Logger } from '../src/log/logger.js'

afterEach(() => vi.useRealTimers())

describe('capConnections', () => {
  it('says how many connections it refused, a line a second at most, never a line of none', () => {
    vi.useFakeTimers({ now: 0 })
    const refused: Array<unknown> = []
    const logger = {
      warn: (fields: { refused: number }) => void refused.push(fields.refused),
    } as unknown as Logger
    const server = new EventEmitter() as unknown as Server
    capConnections(server, 10, () => logger)
    server.emit('drop')
    expect(refused).toEqual([1])
    vi.setSystemTime(500)
    server.emit('drop')
    // The line is due at 1000; a drop that comes once the clock has passed it, before the timer ran, joins it.
    vi.setSystemTime(1_001)
    server.emit('drop')
    vi.runAllTimers()
    expect(refused).toEqual([1, 2])
    expect(server.maxConnections).toBe(10)
  })
})

describe('stalledAfterMs', () => {
  it('is one and a half times HEADERS_TIMEOUT_MS, at least 5 s (more than a lingering close waits)', () => {
    expect(stalledAfterMs({ headersTimeoutMs: 10_000 })).toBe(15_000)
    expect(stalledAfterMs({ headersTimeoutMs: 2_000 })).toBe(5_000)
    expect(stalledAfterMs({ headersTimeoutMs: 100 })).toBe(5_000)
  })
})
