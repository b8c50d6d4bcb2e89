import { pollUntil } from '@pets/domain/testing'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PET_INSERT_LOCK } from '../src/index.js'
import type { FreshDatabase } from '../src/testing/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const DAY_MS = 24 * 3_600_000
type Element = readonly [owner: string, key: string, fingerprint: string, name: string, category: number]
type Answer = { position: string; outcome: string; id: string | null; name: string | null }

const BATCH = `SELECT o_position AS position, outcome, o_id AS id, o_name AS name
  FROM create_pets_once($1::jsonb, NULL, ${DAY_MS}, NULL) ORDER BY o_position`
const asBatch = (elements: ReadonlyArray<Element>) => JSON.stringify(elements.map((e) => [...e, 'available']))
/** The batch's rows, in position order, on `on` (a pool, or a client inside a transaction). */
const batch = async (on: pg.Pool | pg.ClientBase, elements: ReadonlyArray<Element>) =>
  (await on.query<Answer>(BATCH, [asBatch(elements)])).rows
const once = async (fresh: FreshDatabase, [owner, key, fingerprint, name, category]: Element) =>
  (
    await fresh.pool.query<{ outcome: string; id: string | null }>(
      `SELECT outcome, o_id AS id FROM create_pet_once($1, $2, $3, $4, $5, 'available', NULL, ${DAY_MS}, NULL)`,
      [owner, key, fingerprint, name, category],
    )
  ).rows[0]!
const count = async (fresh: FreshDatabase, table: 'pets' | 'idempotency_records') =>
  Number((await fresh.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)

/** A transaction on a connection of its own, open until `end`. */
const openTransaction = async (fresh: FreshDatabase, begin = 'BEGIN') => {
  const client = await fresh.pool.connect()
  await client.query(begin)
  return {
    client,
    end: async (how: 'COMMIT' | 'ROLLBACK' = 'ROLLBACK') => {
      await client.query(how)
      client.release()
    },
  }
}
const keyLock = (key: string, owner: string) =>
  `SELECT pg_advisory_xact_lock(hashtextextended('pets.idempotency' || chr(10) || '${key}' || chr(10) || '${owner}', 0))`
const waitsForAdvisoryLock = (fresh: FreshDatabase) =>
  pollUntil('another session waits for an advisory lock', async () => {
    const { rows } = await fresh.pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND wait_event = 'advisory' AND pid <> pg_backend_pid()`,
    )
    return rows.length > 0
  })

describe('create_pets_once: a batch of idempotent additions in one statement', () => {
  const { open } = useFreshDatabases()

  it('answers each element by position: created, replayed, reused, in_use for a key held elsewhere or earlier in the batch', async () => {
    const fresh = await open()
    const [replayed] = await batch(fresh.pool, [
      ['k', 'replay-me', 'f', 'Old', 1],
      ['k', 'reuse-me', 'f', 'Older', 1],
    ])
    const held = await openTransaction(fresh)
    await held.client.query(keyLock('held', 'k'))
    const answers = await batch(fresh.pool, [
      ['k', 'new-1', 'f', 'One', 1],
      ['k', 'replay-me', 'f', 'Old', 1],
      ['k', 'reuse-me', 'another body', 'Other', 1],
      ['k', 'held', 'f', 'Held', 1],
      ['k', 'new-1', 'f', 'One again', 1],
      ['other owner', 'new-1', 'f', 'Two', 1],
    ])
    await held.end()
    expect(answers.map((a) => [a.position, a.outcome, a.name])).toEqual([
      ['1', 'created', 'One'],
      ['2', 'replayed', 'Old'],
      ['3', 'reused', null],
      ['4', 'in_use', null],
      ['5', 'in_use', null],
      ['6', 'created', 'Two'],
    ])
    expect(answers[1]!.id).toBe(replayed!.id)
    expect(Number(answers[5]!.id)).toBeGreaterThan(Number(answers[0]!.id))
    expect(await count(fresh, 'pets')).toBe(4)
    expect(await count(fresh, 'idempotency_records')).toBe(4)
    // The keys refused in the batch were not recorded: each adds its pet now.
    const again = await batch(fresh.pool, [['k', 'held', 'f', 'Held', 1]])
    expect(again.map((a) => a.outcome)).toEqual(['created'])
  })

  it('answers a finished key from its record while another transaction holds its lock: in_use only without one', async () => {
    const fresh = await open()
    const [done] = await batch(fresh.pool, [['k', 'done', 'f', 'Done', 1]])
    // Another instance replaying `done`, and one adding `running`, each inside its statement.
    const replaying = await openTransaction(fresh)
    await replaying.client.query(keyLock('done', 'k'))
    await replaying.client.query(keyLock('running', 'k'))
    const answers = await batch(fresh.pool, [
      ['k', 'done', 'f', 'Done', 1],
      ['k', 'done', 'another body', 'Other', 1],
      ['k', 'running', 'f', 'Running', 1],
      ['k', 'done', 'f', 'Done', 1],
    ])
    await replaying.end()
    expect(answers.map((a) => [a.outcome, a.id])).toEqual([
      ['replayed', done!.id],
      ['reused', null],
      ['in_use', null],
      ['replayed', done!.id],
    ])
    expect(await count(fresh, 'pets')).toBe(1)
  })

  it('gives the new pets ids that increase with their position, each its own record', async () => {
    const fresh = await open()
    const elements = Array.from({ length: 256 }, (_, i): Element => ['k', `key ${i}`, 'f', `pet ${i}`, i + 1])
    const answers = await batch(fresh.pool, elements)
    const ids = answers.map((a) => Number(a.id))
    expect(answers.map((a) => a.name)).toEqual(elements.map((e) => e[3]))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(256)
    const { rows } = await fresh.pool.query<{ key: string; name: string }>(
      `SELECT r.idempotency_key AS key, p.name FROM idempotency_records r JOIN pets p ON p.id = r.pet_id`,
    )
    for (const row of rows) expect(row.name).toBe(row.key.replace('key', 'pet'))
  })

  it('takes the ordering lock before the first new id, and not at all for a batch with nothing to add', async () => {
    const fresh = await open()
    await batch(fresh.pool, [['k', 'replay-me', 'f', 'Old', 1]])
    const ordering = await openTransaction(fresh)
    await ordering.client.query(`SELECT pg_advisory_xact_lock(${PET_INSERT_LOCK})`)
    // Replays and refusals are answered while another transaction holds the ordering lock.
    const answered = await batch(fresh.pool, [
      ['k', 'replay-me', 'f', 'Old', 1],
      ['k', 'replay-me', 'another body', 'Old', 1],
    ])
    expect(answered.map((a) => a.outcome)).toEqual(['replayed', 'reused'])
    const sequence = `SELECT last_value, is_called FROM pets_id_seq`
    const before = (await fresh.pool.query(sequence)).rows[0]
    const waiting = batch(fresh.pool, [
      ['k', 'new-1', 'f', 'One', 1],
      ['k', 'new-2', 'f', 'Two', 1],
    ])
    await waitsForAdvisoryLock(fresh)
    // Waiting for the lock, it has drawn no id yet.
    expect((await fresh.pool.query(sequence)).rows[0]).toEqual(before)
    await ordering.end()
    expect((await waiting).map((a) => [a.outcome, a.name])).toEqual([
      ['created', 'One'],
      ['created', 'Two'],
    ])
  })

  it('in a read-only transaction: answers replays and reuses, marks the elements that need a write read_only, and writes nothing', async () => {
    const fresh = await open()
    await batch(fresh.pool, [['k', 'replay-me', 'f', 'Old', 1]])
    const readOnly = await openTransaction(fresh, 'BEGIN READ ONLY')
    const answers = await batch(readOnly.client, [
      ['k', 'new', 'f', 'New', 1],
      ['k', 'replay-me', 'f', 'Old', 1],
      ['k', 'replay-me', 'another body', 'Old', 1],
    ])
    await readOnly.end()
    expect(answers.map((a) => [a.outcome, a.name])).toEqual([
      ['read_only', null],
      ['replayed', 'Old'],
      ['reused', null],
    ])
    expect(await count(fresh, 'pets')).toBe(1)
  })

  it('excludes create_pet_once of the previous version, and each replays what the other recorded', async () => {
    const fresh = await open()
    // An instance of the previous version performs `old` in a transaction still open.
    const previous = await openTransaction(fresh)
    await previous.client.query(
      `SELECT create_pet_once('k', 'old', 'f', 'Old', 1, 'available', NULL, ${DAY_MS}, NULL)`,
    )
    const during = await batch(fresh.pool, [['k', 'old', 'f', 'Old', 1]])
    expect(during.map((a) => a.outcome)).toEqual(['in_use'])
    await previous.end('COMMIT')
    const [replayed] = await batch(fresh.pool, [
      ['k', 'old', 'f', 'Old', 1],
      ['k', 'new', 'f', 'New', 1],
    ])
    expect(replayed!.outcome).toBe('replayed')
    expect(await once(fresh, ['k', 'new', 'f', 'New', 1])).toMatchObject({ outcome: 'replayed' })
    // And the other way round: a batch holding a key makes create_pet_once answer in_use.
    const current = await openTransaction(fresh)
    await batch(current.client, [['k', 'newer', 'f', 'Newer', 1]])
    expect(await once(fresh, ['k', 'newer', 'f', 'Newer', 1])).toEqual({ outcome: 'in_use', id: null })
    await current.end('COMMIT')
    expect(await once(fresh, ['k', 'newer', 'f', 'Newer', 1])).toMatchObject({ outcome: 'replayed' })
    expect(await count(fresh, 'pets')).toBe(3)
  })

  it('adds nothing when one element fails, and leaves its keys free', async () => {
    const fresh = await open()
    const failing: ReadonlyArray<Element> = [
      ['k', 'a', 'f', 'A', 1],
      ['k', 'b', 'f', '', 1], // pets_name_length
      ['k', 'c', 'f', 'C', 1],
    ]
    await expect(batch(fresh.pool, failing)).rejects.toMatchObject({ code: '23514' })
    expect(await count(fresh, 'pets')).toBe(0)
    expect(await count(fresh, 'idempotency_records')).toBe(0)
    const retried = await batch(fresh.pool, [failing[0]!, failing[2]!])
    expect(retried.map((a) => a.outcome)).toEqual(['created', 'created'])
  })
})
