import { storeRefusesWrites, storeUnavailable, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  classifyStoreError,
  isBrokenConnection,
  isUnavailableError,
  tryStore,
  type UnavailableEvent,
} from '../src/index.js'
import { connectionFailed, lostSession } from '../src/runner/store-errors.js'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

// What a StoreUnavailable carries for the line of whoever answers it (the request's 503).
const detailed = (
  failure: StoreUnavailable,
  operation: string,
  sqlstate: string | null,
  retried = false,
): StoreUnavailable => ({ ...failure, details: { operation, sqlstate, retried } })

describe('isUnavailableError', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    [
      'every address refused',
      Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: 'ECONNREFUSED' }),
    ],
    ['a reset connection', withCode('ECONNRESET')],
    ['an unknown host', withCode('ENOTFOUND')],
    ['a statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['an administrator shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['a connection exception', withCode('08006')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a connection timeout', new Error('Connection terminated due to connection timeout')],
    ['an exhausted pool', new Error('timeout exceeded when trying to connect')],
    ['a client-side query timeout', new Error('Query read timeout')],
    ['a cause that is one of these', new Error('wrapped', { cause: withCode('ETIMEDOUT') })],
    ['a crash of another backend', withCode('57P02')],
    ['a dropped database', withCode('57P04')],
    ['an idle session timeout', withCode('57P05')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['out of memory', withCode('53200')],
    ['a full disk', withCode('53100')],
    ['a read-only transaction (a standby, a failover)', withCode('25006')],
    ['an idle-in-transaction timeout', withCode('25P03')],
    ['a lock timeout', withCode('55P03', 'canceling statement due to lock timeout')],
    [
      'an advisory lock on a standby',
      withCode(
        '55000',
        'cannot acquire lock mode ExclusiveLock on database objects while recovery is in progress',
      ),
    ],
    ['a deadlock', withCode('40P01')],
    ['a serialization failure', withCode('40001')],
  ])('is true for %s', (_, error) => expect(isUnavailableError(error)).toBe(true))

  it.each([
    ['a unique violation', withCode('23505')],
    ['a check violation', withCode('23514')],
    ['a missing table', withCode('42P01')],
    ['a syntax error', withCode('42601')],
    ['a missing function (a migration not run)', withCode('42883')],
    ['another object_not_in_prerequisite_state', withCode('55000', 'sequence is not yet defined')],
    ['a raised exception', withCode('P0001')],
    ['a TypeError', new TypeError('Cannot read properties of undefined')],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('is false for %s', (_, error) => expect(isUnavailableError(error)).toBe(false))

  it.each([
    [
      'the database takes no connections',
      withCode('55000', 'database "d" is not currently accepting connections'),
    ],
    ['no such database', withCode('3D000', 'database "d" does not exist')],
    ['a password refused', withCode('28P01', 'password authentication failed for user "u"')],
    ['no pg_hba.conf entry', withCode('28000')],
    ['CONNECT revoked', withCode('42501', 'permission denied for database "d"')],
    ['every host refused so', new AggregateError([withCode('3D000'), withCode('28P01')], 'no host')],
  ])('is true for a session the server refused (%s), and only when opening a connection', (_, error) => {
    expect(isUnavailableError(error)).toBe(false)
    expect(isUnavailableError(connectionFailed(error))).toBe(true)
  })

  it('is false for a bug met while opening a connection: the server never answered it', () => {
    expect(
      isUnavailableError(connectionFailed(new TypeError('config.host.startsWith is not a function'))),
    ).toBe(false)
  })
})

describe('tryStore', () => {
  it('answers right with the value, and left StoreUnavailable for an outage', async () => {
    expect(await tryStore(async () => 1)()).toEqual(E.right(1))
    const outage = withCode('ECONNREFUSED')
    expect(await tryStore(() => Promise.reject(outage))()).toEqual(
      E.left(detailed(storeUnavailable(outage), 'unknown', null)),
    )
  })

  it('rethrows any other error', async () => {
    const bug = withCode('42601', 'syntax error at or near "SELEC"')
    await expect(tryStore(() => Promise.reject(bug))()).rejects.toBe(bug)
  })
})

describe('classifyStoreError', () => {
  it('asks for one more try on a deadlock or a serialization failure, also as a cause', () => {
    expect(classifyStoreError(withCode('40P01'))).toBe('retry')
    expect(classifyStoreError(new Error('wrapped', { cause: withCode('40001') }))).toBe('retry')
    expect(classifyStoreError(withCode('57014'))).toBe('unavailable')
    expect(classifyStoreError(withCode('23505'))).toBe('defect')
  })
})

describe('isBrokenConnection', () => {
  it('is true when the server never answered, or ended the session', () => {
    expect(isBrokenConnection(new Error('Query read timeout'))).toBe(true)
    expect(isBrokenConnection(new Error('Connection terminated unexpectedly'))).toBe(true)
    expect(isBrokenConnection(withCode('ECONNRESET'))).toBe(true)
    expect(isBrokenConnection(withCode('57P01'))).toBe(true)
    expect(isBrokenConnection(withCode('08006'))).toBe(true)
  })

  it('is false when the server answered with an error: the connection is fine', () => {
    for (const code of ['57014', '55P03', '25006', '40P01', '23505', '42601'])
      expect(isBrokenConnection(withCode(code))).toBe(false)
    expect(isBrokenConnection(new TypeError('a bug'))).toBe(false)
  })
})

describe('tryStore, retrying and reporting', () => {
  const reporting = () => {
    const events: Array<UnavailableEvent> = []
    return {
      events,
      options: { operation: 'pets.add', onUnavailable: (e: UnavailableEvent) => void events.push(e) },
    }
  }
  const failingTimes = (n: number, error: unknown) => {
    let calls = 0
    const query = async () => {
      calls++
      if (calls <= n) throw error
      return 'done'
    }
    return { query, calls: () => calls }
  }

  it('runs a statement once more after a deadlock, and reports nothing when that succeeds', async () => {
    const { events, options } = reporting()
    const { query, calls } = failingTimes(1, withCode('40P01', 'deadlock detected'))
    expect(await tryStore(query, options)()).toEqual(E.right('done'))
    expect(calls()).toBe(2)
    expect(events).toEqual([])
  })

  it('answers StoreUnavailable after the second failure, reported once with the SQLSTATE', async () => {
    const { events, options } = reporting()
    const failure = withCode('40001', 'could not serialize access')
    const { query, calls } = failingTimes(5, failure)
    expect(await tryStore(query, options)()).toEqual(
      E.left(detailed(storeUnavailable(failure), 'pets.add', '40001', true)),
    )
    expect(calls()).toBe(2)
    expect(events).toEqual([{ operation: 'pets.add', sqlstate: '40001', retried: true, error: failure }])
  })

  it('reports each outage once, without a retry, and without a SQLSTATE when the server never answered', async () => {
    const { events, options } = reporting()
    const readOnly = withCode('25006', 'cannot execute INSERT in a read-only transaction')
    const timeout = new Error('Query read timeout')
    for (const error of [readOnly, timeout]) {
      const { query, calls } = failingTimes(5, error)
      // A read-only database answers: it refuses writes, which the answer says.
      const expected =
        error === readOnly
          ? detailed(storeRefusesWrites(error), 'pets.add', '25006')
          : detailed(storeUnavailable(error), 'pets.add', null)
      expect(await tryStore(query, options)()).toEqual(E.left(expected))
      expect(calls()).toBe(1)
    }
    expect(events).toEqual([
      { operation: 'pets.add', sqlstate: '25006', retried: false, error: readOnly },
      { operation: 'pets.add', retried: false, error: timeout },
    ])
  })

  it('answers StoreRefusesWrites for a hot standby, whose writes fail at the id-ordering lock (55000)', async () => {
    const standby = withCode(
      '55000',
      'cannot acquire lock mode ExclusiveLock on database objects while recovery is in progress',
    )
    expect(await tryStore(() => Promise.reject(standby))()).toEqual(
      E.left(detailed(storeRefusesWrites(standby), 'unknown', '55000')),
    )
    // Another 55000 is a bug, not an outage.
    const other = withCode('55000', 'cursor "c" is not positioned on a row')
    await expect(tryStore(() => Promise.reject(other))()).rejects.toBe(other)
  })

  it('still answers StoreUnavailable when the reporter throws', async () => {
    const outage = withCode('57P01')
    const answer = await tryStore(() => Promise.reject(outage), {
      onUnavailable: () => {
        throw new Error('logger broke')
      },
    })()
    expect(answer).toEqual(E.left(detailed(storeUnavailable(outage), 'unknown', '57P01')))
  })

  const reportingReads = (readOnly: boolean) => {
    const events: Array<UnavailableEvent> = []
    const onUnavailable = (event: UnavailableEvent) => void events.push(event)
    return { events, options: { operation: 'pets.list', readOnly, onUnavailable } }
  }
  const terminated = withCode('57P01', 'terminating connection due to administrator command')

  it('runs once more when its connection was lost, and reports nothing when that succeeds', async () => {
    const { events, options } = reportingReads(true)
    const { query, calls } = failingTimes(1, terminated)
    expect(await tryStore(query, options)()).toEqual(E.right('done'))
    expect(calls()).toBe(2)
    expect(events).toEqual([])
  })

  it('answers StoreUnavailable, retried, when the second connection is lost too', async () => {
    const { events, options } = reportingReads(true)
    const reset = withCode('ECONNRESET')
    const { query, calls } = failingTimes(5, reset)
    expect(await tryStore(query, options)()).toEqual(
      E.left({
        ...storeUnavailable(reset),
        details: { operation: 'pets.list', sqlstate: null, retried: true },
      }),
    )
    expect(calls()).toBe(2)
    expect(events).toEqual([{ operation: 'pets.list', retried: true, error: reset }])
  })

  it('is not run again after a timeout, a refused connection or a lost connection of a write', async () => {
    for (const [readOnly, error] of [
      [true, withCode('57014', 'canceling statement due to statement timeout')],
      [true, new Error('Query read timeout')],
      [true, connectionFailed(withCode('ECONNREFUSED'))],
      [false, terminated],
    ] as const) {
      const { events, options } = reportingReads(readOnly)
      const { query, calls } = failingTimes(5, error)
      expect(await tryStore(query, options)()).toMatchObject(
        E.left({ _tag: 'StoreUnavailable', details: { retried: false } }),
      )
      expect(calls()).toBe(1)
      expect(events).toHaveLength(1)
    }
  })
})

describe('lostSession', () => {
  it.each([
    ['a reset socket', withCode('ECONNRESET')],
    ['a broken pipe', withCode('EPIPE')],
    [
      'an administrator ending the session',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['a crash of another backend', withCode('57P02')],
    ['a connection failure the server names', withCode('08006')],
    ['a protocol violation (a pooler dropping its client)', withCode('08P01')],
    ["pg's closed socket", new Error('Connection terminated unexpectedly')],
    [
      "pg's client that broke before",
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['a cause that is one of these', new Error('wrapped', { cause: withCode('57P01') })],
  ])('is true for %s', (_, error) => expect(lostSession(error)).toBe(true))

  it.each([
    ['a statement timeout (it would wait as long again)', withCode('57014')],
    ["pg's own query timeout", new Error('Query read timeout')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a connection never opened', withCode('08001')],
    ['a server refusing TLS', withCode('08004')],
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a timed-out socket', withCode('ETIMEDOUT')],
    ['a server starting up', withCode('57P03')],
    ['a dropped database', withCode('57P04')],
    ['a read-only transaction', withCode('25006')],
    ['too many connections', withCode('53300')],
    ['a deadlock (retried on its own account)', withCode('40P01')],
    ['an error met while opening the connection', connectionFailed(withCode('57P01'))],
    ['a bug', new TypeError('a bug')],
    ['no object', 'ECONNRESET'],
  ])('is false for %s', (_, error) => expect(lostSession(error)).toBe(false))
})
