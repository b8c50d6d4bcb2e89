import type { FreshDatabase } from '@pets/adapters-postgres/testing'
import { randomUUID } from 'node:crypto'
import type { PetStatus } from '@pets/domain'
import { eventClock, type Acknowledged, type PageRead, type Walk } from './paging-checker.js'

const STATUSES: ReadonlyArray<PetStatus> = ['available', 'pending', 'sold']
// How the service orders inserts today (insert-intents.ts, migration 0008), written out: the
// test's own writers follow the design under test, not an import. An intent, committed first in
// the writer's slot, says that every id the insert draws is above `lowest_id`; the insert clears
// it with its pets.
const REGISTER_INTENT = `INSERT INTO pet_insert_intents (slot, intent, lowest_id, expires_at)
  SELECT $1, $1, coalesce(pg_sequence_last_value(pg_get_serial_sequence('pets', 'id')::regclass), 0) + 1,
    clock_timestamp() + interval '20 seconds'`
const CLEAR_INTENT = 'UPDATE pet_insert_intents SET intent = NULL, lowest_id = NULL WHERE slot = $1'

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]!
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type PetJson = {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: PetStatus
}
type NewPet = Omit<PetJson, 'id'>

/** Who writes and reads, and for how long. */
export type PagingWorkloadOptions = {
  /** The two service processes, each the origin its own `next` links name. */
  readonly urls: ReadonlyArray<string>
  readonly apiKey: string
  /** The test's own transactions go through its pool (directly to PostgreSQL). */
  readonly database: FreshDatabase
  readonly durationMs: number
  readonly writers: number
  readonly walkers: number
  /**
   * Loops of the defect: inserts without an intent, each holding its transaction open 100–300 ms
   * after the INSERT. None unless given.
   */
  readonly unordered?: number
}

/**
 * Pets added over both processes (with and without Idempotency-Key, a repeat of the same key
 * sometimes sent to both at once), inserts of the test's own that roll back or stall while their
 * intent holds listings back, and walks of `next` links, until `durationMs` has passed and every walk begun
 * has reached its last page. `problems` lists every answer that was not as the contract says,
 * besides the paging property itself (that is for checkPaging).
 */
export const runPagingWorkload = async (o: PagingWorkloadOptions) => {
  const clock = eventClock()
  const auth = { Authorization: `Bearer ${o.apiKey}` }
  const acknowledged: Array<Acknowledged> = []
  const walks: Array<Walk> = []
  const problems: Array<string> = []
  const keys = new Map<string, number>()
  const counts = { answered: 0, stalled: 0, unordered: 0, rolledBack: 0 }
  const endsAt = Date.now() + o.durationMs
  const running = () => Date.now() < endsAt

  const post = async (url: string, pet: NewPet, key?: string) => {
    const res = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: {
        ...auth,
        'Content-Type': 'application/json',
        ...(key === undefined ? {} : { 'Idempotency-Key': key }),
      },
      body: JSON.stringify(pet),
    })
    return { status: res.status, at: clock(), body: (await res.json()) as PetJson, url }
  }
  const readYourWrite = async (id: number) => {
    const url = pick(o.urls)
    const page = (await (
      await fetch(`${url}/v1/pets?after=${id - 1}&limit=1`, { headers: auth })
    ).json()) as Array<PetJson>
    if (page[0]?.id !== id)
      problems.push(`${url}: pet ${id} was answered 201, and the next listing gave ${JSON.stringify(page)}`)
  }

  const writer = async (w: number) => {
    for (let n = 0; running(); n++) {
      const pet: NewPet = { name: `pet ${w}.${n}`, categoryId: between(1, 9), status: pick(STATUSES) }
      const key = Math.random() < 0.5 ? `paging-${w}.${n}` : undefined
      // A repeat of the key sent at the same time to the other process: 201 (the same pet) or 409.
      const both = key !== undefined && Math.random() < 0.25
      const answers = await Promise.all((both ? o.urls : [pick(o.urls)]).map((url) => post(url, pet, key)))
      // Acknowledged when the first 201 arrived.
      const created = answers.filter((a) => a.status === 201).sort((x, y) => x.at - y.at)
      const odd = answers.filter((a) => a.status !== 201 && !(both && a.status === 409))
      for (const a of odd)
        problems.push(`${a.url}: POST ${pet.name} answered ${a.status} ${JSON.stringify(a.body)}`)
      const first = created[0]
      if (first === undefined) {
        if (odd.length === 0) problems.push(`POST ${pet.name} (${key}) to both: neither answered 201`)
        continue
      }
      const { id, ...stored } = first.body
      if (JSON.stringify(stored) !== JSON.stringify(pet) || created.some((a) => a.body.id !== id))
        problems.push(`POST ${pet.name}: answered ${JSON.stringify(created.map((a) => a.body))}`)
      acknowledged.push({ id, status: first.body.status, at: first.at })
      counts.answered++
      await readYourWrite(id)
      if (key === undefined) continue
      keys.set(key, id)
      const retry = await post(pick(o.urls), pet, key)
      if (retry.status !== 201 || retry.body.id !== id)
        problems.push(
          `${retry.url}: a retry of ${key} (pet ${id}) answered ${retry.status} ${JSON.stringify(retry.body)}`,
        )
    }
  }

  // One transaction of the test's own: INSERT, then `hold` ms, then COMMIT (or ROLLBACK).
  const insertDirectly = async (name: string, ordered: boolean, hold: number, commit: boolean) => {
    const client = await o.database.pool.connect()
    const slot = randomUUID()
    try {
      if (ordered) await client.query(REGISTER_INTENT, [slot])
      await client.query('BEGIN')
      if (ordered) await client.query(CLEAR_INTENT, [slot])
      const status = pick(STATUSES)
      const { rows } = await client.query<{ id: string }>(
        'INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id',
        [name, between(1, 9), status],
      )
      await pause(hold)
      await client.query(commit ? 'COMMIT' : 'ROLLBACK')
      if (commit) acknowledged.push({ id: Number(rows[0]!.id), status, at: clock() })
      // Rolled back, the intent is there again: a writer that gives up takes it away.
      else if (ordered) await client.query(CLEAR_INTENT, [slot])
      client.release()
    } catch (error) {
      // Not back into the pool in the middle of a transaction.
      client.release(true)
      throw error
    }
  }
  const rollingBack = async () => {
    for (let n = 0; running(); n++, counts.rolledBack++) {
      await insertDirectly(`rolled back ${n}`, true, between(0, 50), false)
      await pause(between(50, 200))
    }
  }
  const stalling = async () => {
    for (let n = 0; running(); n++, counts.stalled++) {
      await insertDirectly(`stalled ${n}`, true, between(200, 400), true)
      await pause(between(300, 800))
    }
  }
  const unorderedLoop = async (u: number) => {
    for (let n = 0; running(); n++, counts.unordered++) {
      await insertDirectly(`unordered ${u}.${n}`, false, between(100, 300), true)
      await pause(between(0, 50))
    }
  }

  const walkOnce = async (name: string): Promise<Walk> => {
    const status = Math.random() < 0.5 ? pick(STATUSES) : undefined
    const limit = between(3, 10)
    const url = pick(o.urls)
    const label = `${name} (${url}, limit=${limit}${status === undefined ? '' : `, status=${status}`})`
    const pages: Array<PageRead> = []
    let next: string | undefined =
      `${url}/v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}`
    while (next !== undefined) {
      const requestedAt = clock()
      const res = await fetch(next, { headers: auth })
      if (res.status !== 200) {
        problems.push(`${label}: GET ${next} answered ${res.status} ${await res.text()}`)
        return { name: label, ...(status === undefined ? {} : { status }), pages, complete: false }
      }
      pages.push({ requestedAt, ids: ((await res.json()) as Array<PetJson>).map((p) => p.id) })
      // Followed exactly as given: the same origin, limit and status, `after` the page's last id.
      next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1]
    }
    return { name: label, ...(status === undefined ? {} : { status }), pages, complete: true }
  }
  const walker = async (w: number) => {
    for (let n = 0; running(); n++) walks.push(await walkOnce(`walk ${w}.${n}`))
  }

  await Promise.all([
    ...Array.from({ length: o.writers }, (_, w) => writer(w)),
    ...Array.from({ length: o.walkers }, (_, w) => walker(w)),
    ...Array.from({ length: o.unordered ?? 0 }, (_, u) => unorderedLoop(u)),
    rollingBack(),
    stalling(),
  ])
  return { acknowledged, walks, problems, keys, counts }
}
