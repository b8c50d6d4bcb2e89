import { afterEach, describe, expect, it, vi } from 'vitest'
import { brokenConnectionLines, listenLines } from '../src/connection-lines.js'
import { outageCause, outageLines, type StorageLog } from '../src/storage-log.js'

const withCode = (code: string, message: string) => Object.assign(new Error(message), { code })
const refused = () =>
  Object.assign(new AggregateError([withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5544')]), {
    code: 'ECONNREFUSED',
  })
const terminated = () => withCode('57P01', 'terminating connection due to administrator command')

// The lines written, and a clock the test moves.
const recorded = () => {
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = []
  const log: StorageLog = (level, message, fields = {}) => void lines.push({ level, message, fields })
  let at = 0
  const { onUnavailable, onServed } = outageLines(log, { now: () => at })
  return {
    lines,
    fail: (error: unknown, operation = 'pets.add') => onUnavailable({ operation, retried: false, error }),
    onServed,
    advance: (ms: number) => void (at += ms),
  }
}

describe('the lines of an outage', () => {
  it('are one warn line when calls start failing and one info line when one is served a second after the last failure, whatever the number of calls', () => {
    const outage = recorded()
    outage.onServed()
    for (let i = 0; i < 1000; i++) {
      outage.fail(i === 0 ? terminated() : refused(), i % 2 === 0 ? 'pets.add' : 'pets.list')
      outage.advance(20)
      // A call served while others still fail (a connection that still works) ends nothing.
      if (i % 10 === 0) outage.onServed()
    }
    outage.advance(999)
    outage.onServed()
    outage.advance(1)
    outage.onServed()
    outage.onServed()
    expect(outage.lines).toEqual([
      {
        level: 'warn',
        message:
          'PostgreSQL cannot serve calls: each is answered 503 unavailable (background work is tried again later) until it can',
        fields: {
          operation: 'pets.add',
          code: '57P01',
          cause: 'terminating connection due to administrator command',
        },
      },
      {
        level: 'info',
        message: 'PostgreSQL serves calls again',
        fields: {
          failingForMs: 19_980,
          failed: 1000,
          codes: { '57P01': 1, ECONNREFUSED: 999 },
          operations: { 'pets.add': 500, 'pets.list': 500 },
        },
      },
    ])
  })

  it('say once a minute at most that calls still fail, and begin again with the next failure', () => {
    const outage = recorded()
    for (let i = 0; i <= 150; i++) {
      outage.fail(refused())
      if (i % 3 === 0) outage.onServed()
      outage.advance(1000)
    }
    outage.onServed()
    outage.fail(terminated(), 'pets.list')
    expect(outage.lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', expect.stringMatching(/^PostgreSQL cannot serve calls:/)],
      ['warn', 'PostgreSQL still cannot serve calls'],
      ['warn', 'PostgreSQL still cannot serve calls'],
      ['info', 'PostgreSQL serves calls again'],
      ['warn', expect.stringMatching(/^PostgreSQL cannot serve calls:/)],
    ])
    expect(outage.lines[1]!.fields).toEqual({
      forMs: 60_000,
      failed: 60,
      served: 20,
      last: { operation: 'pets.add', code: 'ECONNREFUSED', cause: 'connect ECONNREFUSED 127.0.0.1:5544' },
    })
    expect(outage.lines[3]!.fields).toMatchObject({ failingForMs: 150_000, failed: 151 })
    expect(outage.lines[4]!.fields).toEqual({
      operation: 'pets.list',
      code: '57P01',
      cause: 'terminating connection due to administrator command',
    })
  })

  it('count at most 16 codes by name, the rest as other', () => {
    const outage = recorded()
    for (let i = 0; i < 20; i++) outage.fail(withCode(`53${String(i).padStart(3, '0')}`, 'x'))
    outage.advance(1000)
    outage.onServed()
    const codes = outage.lines[1]!.fields['codes'] as Record<string, number>
    expect(Object.keys(codes)).toHaveLength(17)
    expect(codes['other']).toBe(4)
  })
})

describe('the cause of an outage, as a line has it', () => {
  it.each([
    [
      'a server error',
      terminated(),
      { code: '57P01', cause: 'terminating connection due to administrator command' },
    ],
    [
      "node's connect to every address of a host",
      Object.assign(new AggregateError([withCode('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')]), {
        code: 'ECONNREFUSED',
      }),
      { code: 'ECONNREFUSED', cause: 'connect ECONNREFUSED ::1:5432' },
    ],
    [
      "pg's words without a code",
      new Error('Connection terminated unexpectedly'),
      { code: null, cause: 'Connection terminated unexpectedly' },
    ],
    [
      'a cause',
      new Error('outer', { cause: withCode('ETIMEDOUT', 'inner') }),
      { code: 'ETIMEDOUT', cause: 'outer' },
    ],
    ['no error', 'down', { code: null, cause: 'down' }],
  ])('names the code and the message of %s, never a stack', (_, error, expected) =>
    expect(outageCause(error)).toEqual(expected),
  )
})

describe('the lines of broken connections', () => {
  afterEach(() => void vi.useRealTimers())
  const broken = () => {
    const lines: Array<[string, string, Readonly<Record<string, unknown>> | undefined]> = []
    const log: StorageLog = (level, message, fields) => void lines.push([level, message, fields])
    return { lines, ...brokenConnectionLines(log, { windowMs: 1000 }) }
  }

  it('are one warn line a burst, a second after its first break, with how many broke and the first cause', () => {
    vi.useFakeTimers()
    const pool = broken()
    for (let i = 0; i < 7; i++) pool.onBroken(terminated())
    vi.advanceTimersByTime(999)
    pool.onBroken(new Error('Connection terminated unexpectedly'))
    expect(pool.lines).toEqual([])
    vi.advanceTimersByTime(1)
    pool.onBroken(refused())
    vi.advanceTimersByTime(1000)
    expect(pool.lines).toEqual([
      [
        'warn',
        'PostgreSQL connections broke; the pool replaces them',
        { connections: 8, code: '57P01', cause: 'terminating connection due to administrator command' },
      ],
      [
        'warn',
        'PostgreSQL connections broke; the pool replaces them',
        { connections: 1, code: 'ECONNREFUSED', cause: 'connect ECONNREFUSED 127.0.0.1:5544' },
      ],
    ])
  })

  it('are written at once by flush (the storage closes), and not again', () => {
    vi.useFakeTimers()
    const pool = broken()
    pool.onBroken(terminated())
    pool.flush()
    pool.flush()
    vi.advanceTimersByTime(5000)
    expect(pool.lines.map(([, , fields]) => fields?.['connections'])).toEqual([1])
  })
})

describe('the lines of the LISTEN connection for API keys', () => {
  it('say once that it is lost, whatever the tries to connect again, once a minute at most that it still is, and once that it hears again', () => {
    const lines: Array<[string, string, Readonly<Record<string, unknown>> | undefined]> = []
    let at = 0
    const listen = listenLines((level, message, fields) => void lines.push([level, message, fields]), {
      now: () => at,
    })
    // Up at start: nothing to say.
    listen.up()
    listen.down(terminated())
    // Tries to connect again, every 0.25 to 10 s, for 75 s.
    for (at = 250; at <= 75_000; at += 2_500) listen.down(refused())
    listen.up()
    listen.up()
    expect(lines).toEqual([
      [
        'warn',
        'API keys: not hearing of changes; each key is looked up in PostgreSQL meanwhile',
        { code: '57P01', cause: 'terminating connection due to administrator command' },
      ],
      [
        'warn',
        'API keys: still not hearing of changes; each key is looked up in PostgreSQL',
        {
          forMs: 60_250,
          attempts: 25,
          code: 'ECONNREFUSED',
          cause: 'connect ECONNREFUSED 127.0.0.1:5544',
        },
      ],
      [
        'info',
        'API keys: hearing of changes again; keys are checked in memory',
        { downForMs: 75_250, attempts: 31 },
      ],
    ])
  })
})
