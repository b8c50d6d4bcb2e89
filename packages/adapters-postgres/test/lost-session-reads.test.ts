import type { PageCursor } from '@pets/domain'
import { aPetData, pollUntil, run } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createPostgresPetRepository, type UnavailableEvent } from '../src/index.js'
import { startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

// PgBouncer in transaction mode (Debian's, started here; or TEST_PGBOUNCER_URL): a server connection it
// loses under a statement ends its client's connection too, which the read meets instead of 57P01.
let bouncer: Promise<TestPgBouncer> | undefined
afterAll(async () => {
  await (await bouncer)?.stop()
})

describe('a statement whose session is ended under it, on PostgreSQL', () => {
  const { open, track } = useFreshDatabases()
  const everything = { limit: 100, after: 0 as PageCursor }
  // A session of another application's, outside the pool under test.
  const session = async (database: { readonly url: string }) => {
    const client = new pg.Client({ connectionString: database.url })
    // The database is dropped after the test, ending this session too: no uncaught 57P01 then.
    client.on('error', () => {})
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

  it.each(['directly', 'through PgBouncer'])(
    'answers a listing %s from another connection, and tells no one of an outage',
    async (how) => {
      const events: Array<UnavailableEvent> = []
      const through =
        how === 'directly' ? {} : { through: await (bouncer ??= startTestPgBouncer(inject('postgres').url)) }
      const database = await open({ statementTimeoutMs: 20_000, lockTimeoutMs: 20_000, ...through })
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
    },
  )

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
