import { pollUntil } from '@pets/domain/testing'
import pg from 'pg'
import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import { createChangeListener } from '../src/runner/index.js'
import { startSilentProxy } from './support/silent-proxy.js'

describe("the LISTEN connection's heartbeat", () => {
  const closing: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    vi.restoreAllMocks()
    for (const close of closing.splice(0).reverse()) await close()
  })

  it('asks no second SELECT 1 while one waits for its answer (pg queues it; pg@9 refuses it)', async () => {
    const url = new URL(inject('postgres').url)
    const proxy = await startSilentProxy({ host: url.hostname, port: Number(url.port || 5432) })
    closing.push(() => proxy.close())
    // The heartbeats under way on each client: the most seen at once.
    const underWay = new Map<object, number>()
    let most = 0
    let beats = 0
    const query = pg.Client.prototype.query
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args)
      if (args[0] !== 'SELECT 1' || !(result instanceof Promise)) return result as never
      beats++
      underWay.set(this, (underWay.get(this) ?? 0) + 1)
      most = Math.max(most, underWay.get(this)!)
      const done = () => void underWay.set(this, underWay.get(this)! - 1)
      void result.then(done, done)
      return result as never
    })
    const pool = new pg.Pool({ connectionString: inject('postgres').url })
    closing.push(() => pool.end())
    const errors: Array<Error> = []
    let up = false
    const listener = createChangeListener(
      { connectionString: proxy.through(inject('postgres').url), heartbeatMs: 30, timeoutMs: 1_500 },
      {
        channel: 'heartbeat_test',
        notifyElsewhere: async (channel, payload) =>
          void (await pool.query('SELECT pg_notify($1, $2)', [channel, payload])),
        ready: async () => {},
        notified: () => {},
        up: () => void (up = true),
        down: () => void (up = false),
        onError: (error) => void errors.push(error),
      },
    )
    closing.push(() => listener.close())
    await listener.start()
    expect(up).toBe(true)
    await pollUntil('a few heartbeats answered', () => beats >= 3, 5_000)
    // The path freezes: the beat under way waits for its timeout (1.5 s), fifty beats' time.
    proxy.silence()
    await pollUntil('the silent connection is given up', () => !up, 5_000)
    expect(errors.map((error) => error.message)).toEqual(['Query read timeout'])
    expect(most).toBe(1)
  })
})
