import { pollUntil } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { startLoad, type Sent } from './support/load.js'
import { databaseBehindProxy } from './support/postgres-via-proxy.js'
import { startTestService, type ChildService } from './support/test-service.js'

// Issue 13: a path to PostgreSQL that goes silent (a host that freezes, a NAT or firewall entry
// that expires): sockets stay open, nothing passes, and the old connections stay dead when the
// path returns. Every service here runs with the defaults of DATABASE_*: they are what is tested.
const KEY = 'partition-e2e-key-7c01ad'
const AUTH = { Authorization: `Bearer ${KEY}` }
// Real time against real processes: how long a path stays silent, and B's pace, are what is tested.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

type Pet = { id: number; name: string }

const create = (url: string, name: string, idempotencyKey?: string) =>
  fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: {
      ...AUTH,
      'Content-Type': 'application/json',
      'X-Request-Id': name,
      ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
    },
    body: JSON.stringify({ name, categoryId: 1 }),
  })

/** Sends one request and notes it as the load does. */
const sendOne = async (entries: Array<Sent>, id: string, send: () => Promise<Response>) => {
  const entry: Sent = { id, startedAt: Date.now() }
  entries.push(entry)
  try {
    const res = await send()
    entry.status = res.status
    entry.retryAfter = res.headers.get('retry-after')
    entry.body = JSON.parse(await res.text()) as unknown
  } catch (error) {
    entry.error = String(error)
  } finally {
    entry.endedAt = Date.now()
  }
}

/** Every pet, walking the `after` pages as a client would. */
const listAll = async (url: string): Promise<Array<Pet>> => {
  const pets: Array<Pet> = []
  for (let after = 0; ;) {
    const res = await fetch(`${url}/v1/pets?limit=100&after=${after}`, { headers: AUTH })
    expect(res.status).toBe(200)
    const page = (await res.json()) as Array<Pet>
    pets.push(...page)
    if (page.length < 100) return pets
    after = page.at(-1)!.id
  }
}

/** Each created pet is found by id with its name, and listed exactly once. */
const expectReadableAndListedOnce = async (url: string, created: ReadonlyArray<Pet>) => {
  const listed = await listAll(url)
  const ids = listed.map((p) => p.id)
  expect(new Set(ids).size).toBe(ids.length)
  const byId = new Map(listed.map((p) => [p.id, p.name]))
  for (const pet of created) expect(byId.get(pet.id)).toBe(pet.name)
  for (let i = 0; i < created.length; i += 16)
    await Promise.all(
      created.slice(i, i + 16).map(async (pet) => {
        const res = await fetch(`${url}/v1/pets/${pet.id}`, { headers: AUTH })
        expect(res.status).toBe(200)
        expect(((await res.json()) as Pet).name).toBe(pet.name)
      }),
    )
}

const expectUnavailable = (s: Sent) => {
  expect(s.status, `${s.id}: ${JSON.stringify(s.body ?? s.error)}`).toBe(503)
  expect(s.retryAfter).toMatch(/^\d+$/)
  expect(s.body).toMatchObject({ code: 'unavailable', status: 503 })
}

const took = (s: Sent) => (s.endedAt ?? Number.POSITIVE_INFINITY) - s.startedAt

describe('a silent path to PostgreSQL', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const start = async (env: Record<string, string>): Promise<ChildService> => {
    const svc = await startTestService({
      mode: 'child',
      env: { API_KEYS: KEY, MIGRATE_ON_START: 'false', ...env },
      timeoutMs: 30_000,
    })
    cleanups.push(async () => void (await svc.stop('SIGKILL')))
    return svc
  }

  it(
    "never freezes another instance's writes, and its own come back within seconds",
    { timeout: 90_000 },
    async () => {
      const db = await databaseBehindProxy()
      cleanups.push(db.close)
      // A reaches the database through the proxy; B directly.
      const [a, b] = await Promise.all([
        start({ DATABASE_URL: db.url }),
        start({ DATABASE_URL: db.database.url }),
      ])
      const loadA = startLoad(8, (id) => create(a.url, id, id))
      await pollUntil('A adds pets', () => loadA.sent.filter((s) => s.status === 201).length >= 16, 10_000)

      const frozenAt = Date.now()
      db.proxy.silence()
      const backAt = frozenAt + 10_000
      // B adds a pet every 200 ms, one at a time, from the freeze on until 2 s after A's path
      // returned.
      const sentB: Array<Sent> = []
      const loopB = (async () => {
        for (let i = 0; Date.now() < backAt + 2_000; i++) {
          await sendOne(sentB, `b-${i}`, () => create(b.url, `b-${frozenAt}-${i}`))
          await pause(200)
        }
      })()
      await pause(backAt - Date.now())
      db.proxy.restore()
      const restoredAt = Date.now()
      const addedAgain = (s: Sent) => s.status === 201 && (s.endedAt ?? 0) > restoredAt
      await pollUntil('A adds a pet again', () => loadA.sent.some(addedAgain), 5_000)
      await loopB
      const sentA = await loadA.stop()

      // B: a pet added in every second from 3 s after the freeze on, as the issue asks; and in
      // fact every request of B added one, from the first instant of the freeze: no lock that B
      // needs is ever held while A's server waits for A.
      expect(sentB.length).toBeGreaterThan(30)
      for (let second = frozenAt + 3_000; second < restoredAt; second += 1_000)
        expect(
          sentB.some(
            (s) => s.status === 201 && (s.endedAt ?? 0) >= second && (s.endedAt ?? 0) < second + 1_000,
          ),
        ).toBe(true)
      expect(
        sentB.filter((s) => s.status !== 201).map((s) => [s.id, s.startedAt - frozenAt, s.status, s.body]),
      ).toEqual([])
      // A: 201 or 503 with Retry-After, never anything else; back within 5 s of its path.
      expect(sentA.filter((s) => s.status !== 201 && s.status !== 503)).toEqual([])
      sentA.filter((s) => s.status === 503).forEach(expectUnavailable)
      const firstAgain = Math.min(...sentA.filter(addedAgain).map((s) => s.endedAt!)) - restoredAt
      console.log(`A: first 201 ${firstAgain} ms after its path returned; B: ${sentB.length} pets added`)
      expect(firstAgain).toBeLessThanOrEqual(5_000)

      const created = [...sentA, ...sentB].filter((s) => s.status === 201).map((s) => s.body as Pet)
      await expectReadableAndListedOnce(b.url, created)
      for (const svc of [a, b]) expect(svc.output()).not.toContain('"status":500')
    },
  )

  it(
    'answers 503 with Retry-After within 2.5 s while silent, and 2xx within 2 s of its return',
    { timeout: 60_000 },
    async () => {
      const db = await databaseBehindProxy()
      cleanups.push(db.close)
      const svc = await start({ DATABASE_URL: db.url })
      // Half the loops add pets, half list them.
      let turn = 0
      const load = startLoad(8, (id) =>
        turn++ % 2 === 0
          ? create(svc.url, id)
          : fetch(`${svc.url}/v1/pets?limit=5`, { headers: { ...AUTH, 'X-Request-Id': id } }),
      )
      await pollUntil(
        'the service answers',
        () => load.sent.filter((s) => s.status === 201).length >= 16,
        10_000,
      )

      const silentAt = Date.now()
      db.proxy.silence()
      await pause(5_000)
      db.proxy.restore()
      const restoredAt = Date.now()
      const succeeded = (s: Sent) => s.status !== undefined && s.status < 300 && (s.endedAt ?? 0) > restoredAt
      await pollUntil('a 2xx after the path returned', () => load.sent.some(succeeded), 5_000)
      const sent = await load.stop()

      expect(sent.filter((s) => ![200, 201, 503].includes(s.status ?? 0))).toEqual([])
      // Sent after the path went silent and answered before it returned: none of these can have
      // reached the database. (By the answer's time alone, an answer already on its way when the
      // path went silent could arrive late on a busy machine.)
      const during = sent.filter((s) => s.startedAt > silentAt && (s.endedAt ?? 0) <= restoredAt)
      expect(during.length).toBeGreaterThan(8)
      during.forEach(expectUnavailable)
      // No request sent into the silence waited longer than 2.5 s, whatever it got.
      const sentIntoSilence = sent.filter((s) => (s.endedAt ?? 0) > silentAt)
      const slowest = Math.max(...sentIntoSilence.map(took))
      const firstBack = Math.min(...sent.filter(succeeded).map((s) => s.endedAt!)) - restoredAt
      console.log(
        `silent path: ${during.length} answers 503, the slowest after ${slowest} ms; first 2xx ${firstBack} ms after the path returned`,
      )
      expect(slowest).toBeLessThanOrEqual(2_500)
      expect(firstBack).toBeLessThanOrEqual(2_000)
      // Each 503's request line says which call failed (each request here makes one store call: the key is
      // checked without a query) and why, once the log (written at most LOG_FLUSH_INTERVAL_MS late) has it.
      const unavailable = sent.filter((s) => s.status === 503)
      const lines = () => svc.output().split('\n')
      const lineOf = (id: string) =>
        lines().find((l) => l.includes(`"requestId":"${id}"`) && l.includes('"msg":"request"'))
      await pollUntil('the log has caught up', () => unavailable.every((s) => lineOf(s.id) !== undefined))
      for (const { id } of unavailable)
        expect(lineOf(id)).toMatch(
          /"status":503,.*"store":\{"operation":"pets\.(add|list)","sqlstate":(null|"[0-9A-Z]{5}"),"retried":(true|false),"cause":"[^"]+"\}/,
        )
      // The outage is one warn line, not one a 503, and no line of it has a stack: nothing in it is a bug.
      expect(lines().filter((l) => l.includes('cannot serve this call now'))).toEqual([])
      const outage = lines().filter((l) => l.includes('PostgreSQL cannot serve calls'))
      expect(outage.length).toBeGreaterThanOrEqual(1)
      expect(outage.length).toBeLessThanOrEqual(2)
      expect(outage[0]).toMatch(/"level":40,.*"operation":"[a-zA-Z.]+","code":null,"cause":"[^"]+"/)
      expect(outage[0]).not.toMatch(/\\n\s+at /)
      expect(svc.output()).not.toContain('"status":500')
      // The shutdown does not wait on the connections the silence killed.
      expect(await svc.stop()).toBe(0)
    },
  )
})
