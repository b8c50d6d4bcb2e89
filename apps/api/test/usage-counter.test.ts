import { createMemoryApiKeyUsageLog } from '@pets/adapters-memory'
import { storeUnavailable, type ApiKeyUsageLog } from '@pets/domain'
import { run } from '@pets/domain/testing'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createUsageCounter, type UsageCounter } from '../src/usage-counter.js'

const quiet = () => {
  const warnings: Array<string> = []
  return { warnings, warn: (_: object, message: string) => void warnings.push(message), error: () => {} }
}

// A log whose store is down until `up` is set.
const flaky = (log: ApiKeyUsageLog) => {
  const state = { up: false, tries: 0 }
  const wrapped: ApiKeyUsageLog = {
    list: log.list,
    add: (entries) => {
      state.tries++
      return state.up ? log.add(entries) : TE.left(storeUnavailable())
    },
  }
  return { state, log: wrapped }
}

describe('the usage counter', () => {
  const counters: Array<UsageCounter> = []
  const make = (options: Parameters<typeof createUsageCounter>[0]) => {
    const counter = createUsageCounter(options)
    counters.push(counter)
    return counter
  }
  afterEach(async () => {
    await Promise.all(counters.splice(0).map((c) => c.close()))
  })

  it('writes nothing per call, and every call counted at the next flush', async () => {
    const log = createMemoryApiKeyUsageLog()
    let now = Date.parse('2026-11-22T12:00:00Z')
    const counter = make({ log, flushEveryMs: 3_600_000, logger: quiet(), now: () => now })
    counter.count('env-1', 'getPet')
    now += 1000
    counter.count('env-1', 'getPet')
    counter.count('7', 'listPets')
    expect(await run(log.list())).toEqual([])
    await counter.flush()
    expect(await run(log.list())).toEqual([
      { keyId: '7', operation: 'listPets', calls: 1, lastCalledAt: new Date('2026-11-22T12:00:01Z') },
      { keyId: 'env-1', operation: 'getPet', calls: 2, lastCalledAt: new Date('2026-11-22T12:00:01Z') },
    ])
    await counter.flush()
    expect((await run(log.list())).map((c) => c.calls)).toEqual([1, 2])
  })

  it('keeps the counts while the store is down, and writes them once it is back, saying so once each', async () => {
    const memory = createMemoryApiKeyUsageLog()
    const { state, log } = flaky(memory)
    const lines: Array<string> = []
    const logger = {
      info: (fields: object, message: string) => void lines.push(`info ${message} ${JSON.stringify(fields)}`),
      warn: (_: object, message: string) => void lines.push(`warn ${message}`),
      error: () => {},
    }
    const counter = make({ log, flushEveryMs: 3_600_000, logger })
    // Twelve intervals of an outage: one line, not one each.
    for (let i = 0; i < 12; i++) {
      counter.count('1', 'getPet')
      await counter.flush()
    }
    expect(state.tries).toBe(12)
    state.up = true
    await counter.flush()
    expect((await run(memory.list())).map((c) => c.calls)).toEqual([12])
    expect(lines).toEqual([
      'warn usage counts not written: the store is unavailable; kept for the next try',
      'info usage counts written again {"failedWrites":12}',
    ])
  })

  it('writes what is left when it closes, and says how many calls it lost when it cannot', async () => {
    const memory = createMemoryApiKeyUsageLog()
    const written = make({ log: memory, flushEveryMs: 3_600_000, logger: quiet() })
    written.count('1', 'getPet')
    await written.close()
    expect((await run(memory.list())).map((c) => c.calls)).toEqual([1])

    const logger = quiet()
    const lost = make({ log: flaky(memory).log, flushEveryMs: 3_600_000, logger })
    lost.count('1', 'getPet')
    lost.count('2', 'getPet')
    await lost.close()
    expect(logger.warnings.at(-1)).toMatch(/lost at shutdown/)
  })

  it('says in one line, without an error, that a missing table (a schema behind) kept the counts out', async () => {
    const lines: Array<{ level: string; fields: object; message: string }> = []
    const logger = {
      warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields, message }),
      error: (fields: object, message: string) => void lines.push({ level: 'error', fields, message }),
    }
    // What pg throws for an INSERT into a table the migrations have not made yet.
    const undefinedTable = Object.assign(new Error('relation "api_key_usage" does not exist'), {
      code: '42P01',
    })
    const log: ApiKeyUsageLog = { list: () => TE.right([]), add: () => () => Promise.reject(undefinedTable) }
    const counter = make({ log, flushEveryMs: 3_600_000, logger })
    counter.count('1', 'listPets')
    await counter.close()
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { entries: 1, sqlstate: '42P01' },
        message:
          'usage counts not written: their table does not exist (the schema is behind this version: run ' +
          '"animal-store migrate"); kept for the next try',
      },
      {
        level: 'warn',
        fields: { calls: 1 },
        message:
          'usage counts lost at shutdown: their table does not exist (the schema is behind this version: run ' +
          '"animal-store migrate")',
      },
    ])
  })

  it('flushes by itself every interval', async () => {
    const log = createMemoryApiKeyUsageLog()
    const counter = make({ log, flushEveryMs: 100, logger: quiet() })
    counter.count('1', 'getPet')
    await expect.poll(async () => (await run(log.list())).length, { timeout: 5_000 }).toBe(1)
  })
})
