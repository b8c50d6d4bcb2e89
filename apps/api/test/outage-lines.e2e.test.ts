import { pollUntil } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { logLinesOf } from './support/log-lines.js'
import { startLoad } from './support/load.js'
import { databaseBehindProxy } from './support/postgres-via-proxy.js'
import { startTestService } from './support/test-service.js'

const KEY = 'outage-lines-e2e-key-7c1f0a'
const AUTH = { Authorization: `Bearer ${KEY}` }
const OUTAGE_MS = 3_000

describe('the log of a database outage under load', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('is one line per kind of event, none with a stack, and says when each part is back', async () => {
    const db = await databaseBehindProxy()
    cleanups.push(db.close)
    const svc = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: db.url, API_KEYS: KEY, USAGE_FLUSH_MS: '1000', READY_TIMEOUT_MS: '300' },
    })
    cleanups.push(async () => void (await svc.stop('SIGKILL')))
    // Creations with and without a key, and listings, from 8 clients.
    let turn = 0
    const load = startLoad(8, (requestId) => {
      const kind = turn++ % 3
      if (kind === 2)
        return fetch(`${svc.url}/v1/pets?limit=5`, { headers: { ...AUTH, 'X-Request-Id': requestId } })
      return fetch(`${svc.url}/v1/pets`, {
        method: 'POST',
        headers: {
          ...AUTH,
          'Content-Type': 'application/json',
          'X-Request-Id': requestId,
          ...(kind === 1 ? { 'Idempotency-Key': requestId } : {}),
        },
        body: JSON.stringify({ name: requestId, categoryId: 1 }),
      })
    })
    await pollUntil(
      'the load adds pets',
      () => load.sent.filter((s) => s.status === 201).length >= 16,
      10_000,
    )

    // PostgreSQL goes away (every connection reset, every new one refused) for 3 s, then is back.
    db.proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS))
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(503)
    db.proxy.restore()
    const restoredAt = Date.now()
    await pollUntil(
      'a 201 after the return',
      () => load.sent.some((s) => s.status === 201 && s.startedAt > restoredAt),
      5_000,
    )
    // Every part says it is back: the calls, the LISTEN connection (its backoff: a few seconds), usage counts.
    const back = [
      'PostgreSQL serves calls again',
      'API keys: hearing of changes again; keys are checked in memory',
      'usage counts written again',
    ]
    await pollUntil(
      'every part says it is back',
      () => back.every((msg) => svc.output().includes(msg)),
      20_000,
    )
    const sent = await load.stop()
    const unavailable = sent.filter((s) => s.status === 503)
    expect(unavailable.length).toBeGreaterThan(50)
    expect(sent.filter((s) => s.status !== undefined && ![200, 201, 503].includes(s.status))).toEqual([])
    await pollUntil('the log has every request line', () =>
      unavailable.every((s) => svc.output().includes(`"requestId":"${s.id}"`)),
    )

    const lines = logLinesOf(svc.output())
    // Every 503's own request line says which call failed and why.
    const requestLines = new Map(lines.filter((l) => l.msg === 'request').map((l) => [l['requestId'], l]))
    for (const { id } of unavailable)
      expect(requestLines.get(id)).toMatchObject({
        status: 503,
        store: { operation: expect.stringMatching(/^(pets|creations)\./), cause: expect.any(String) },
      })
    // Besides the request lines, one line per kind of event: hundreds of 503s wrote a line and a stack each.
    const others = lines.filter((l) => l.msg !== 'request').map((l) => `${l.level} ${l.msg}`)
    const count = (prefix: string) => others.filter((l) => l.startsWith(prefix)).length
    expect(count('40 PostgreSQL cannot serve calls:')).toBe(1)
    expect(count('30 PostgreSQL serves calls again')).toBe(1)
    expect(count('40 PostgreSQL connections broke; the pool replaces them')).toBeLessThanOrEqual(2)
    expect(count('40 API keys: not hearing of changes')).toBe(1)
    expect(count('30 API keys: hearing of changes again')).toBe(1)
    expect(count('40 usage counts not written')).toBe(1)
    expect(count('30 usage counts written again')).toBe(1)
    expect(others.filter((l) => l.startsWith('40 ') || l.startsWith('50 ')).length).toBeLessThanOrEqual(5)
    // No stack: an outage is no bug.
    expect(svc.output()).not.toMatch(/\\n\s+at /)
    expect(svc.output()).not.toContain('"status":500')
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200)
    expect(await svc.stop()).toBe(0)
  })
})
