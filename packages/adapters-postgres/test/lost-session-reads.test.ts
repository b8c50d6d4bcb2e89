import { storeUnavailable, type PageCursor } from '@pets/domain'
import { aPetData, pollUntil, run } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createPostgresPetRepository, tryStore, type UnavailableEvent } from '../src/index.js'
import { connectionFailed, lostSession } from '../src/runner/store-errors.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

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

describe('tryStore of a call that only reads', () => {
  const failingTimes = (n: number, error: unknown) => {
    let calls = 0
    const query = async () => {
      calls++
      if (calls <= n) throw error
      return 'rows'
    }
    return { query, calls: () => calls }
  }
  const reporting = (readOnly: boolean) => {
    const events: Array<UnavailableEvent> = []
    const onUnavailable = (event: UnavailableEvent) => void events.push(event)
    return { events, options: { operation: 'pets.list', readOnly, onUnavailable } }
  }
  const terminated = withCode('57P01', 'terminating connection due to administrator command')

  it('runs once more when its connection was lost, and reports nothing when that succeeds', async () => {
    const { events, options } = reporting(true)
    const { query, calls } = failingTimes(1, terminated)
    expect(await tryStore(query, options)()).toEqual(E.right('rows'))
    expect(calls()).toBe(2)
    expect(events).toEqual([])
  })

  it('answers StoreUnavailable, retried, when the second connection is lost too', async () => {
    const { events, options } = reporting(true)
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
      const { events, options } = reporting(readOnly)
      const { query, calls } = failingTimes(5, error)
      expect(await tryStore(query, options)()).toMatchObject(
        E.left({ _tag: 'StoreUnavailable', details: { retried: false } }),
      )
      expect(calls()).toBe(1)
      expect(events).toHaveLength(1)
    }
  })
})

describe('a statement whose session is ended under it, on PostgreSQL', () => {
  const { open, track } = useFreshDatabases()
  const everything = { limit: 100, after: 0 as PageCursor }
  // A session of another application's, outside the pool under test.
  const session = async (database: { readonly url: string }) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    track({ close: () => client.end() })
    return client
  }

  // Starts `call` while `pets` is locked, ends the session that waits for the lock, and lets the lock go once
  // `then` holds of the sessions waiting then: what the call answered.
  const endedUnderIt = async <A>(
    database: { readonly url: string },
    call: () => Promise<A>,
    then: (waitingNow: ReadonlyArray<number>, ended: number) => boolean,
  ) => {
    const [holder, watcher] = [await session(database), await session(database)]
    // Watched from a session outside any transaction: inside one, pg_stat_activity stays as first read.
    const waiting = async () =>
      (
        await watcher.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows.map(({ pid }) => pid)
    await holder.query('BEGIN')
    await holder.query('LOCK TABLE pets IN ACCESS EXCLUSIVE MODE')
    const answer = call()
    let first: ReadonlyArray<number> = []
    await pollUntil('the call waits for the lock', async () => (first = await waiting()).length === 1)
    await watcher.query('SELECT pg_terminate_backend($1)', [first[0]])
    await pollUntil('the ended session is gone', async () => then(await waiting(), first[0]!))
    await holder.query('COMMIT')
    return answer
  }

  it('answers a listing from another connection, and tells no one of an outage', async () => {
    const events: Array<UnavailableEvent> = []
    const database = await open({ statementTimeoutMs: 20_000, lockTimeoutMs: 20_000 })
    const repo = createPostgresPetRepository(database, { onUnavailable: (e) => void events.push(e) })
    const pet = await run(repo.add(aPetData()))
    // The listing waits for the lock again, on a connection of its own.
    const answer = await endedUnderIt(
      database,
      () => repo.list(everything)(),
      (now, ended) => now.length === 1 && now[0] !== ended,
    )
    expect(answer).toEqual(E.right([pet]))
    expect(events).toEqual([])
  })

  it('answers a creation StoreUnavailable and never runs it again: its commit may have happened', async () => {
    const events: Array<UnavailableEvent> = []
    const database = await open({ statementTimeoutMs: 20_000, lockTimeoutMs: 20_000 })
    const repo = createPostgresPetRepository(database, { onUnavailable: (e) => void events.push(e) })
    const answer = await endedUnderIt(
      database,
      () => repo.add(aPetData())(),
      (now) => now.length === 0,
    )
    expect(answer).toMatchObject(E.left({ _tag: 'StoreUnavailable', details: { retried: false } }))
    expect(events).toMatchObject([{ operation: 'pets.add', sqlstate: '57P01', retried: false }])
    expect(await run(repo.list(everything))).toEqual([])
  })
})
