import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OperationCalls } from '../api-key-usage.js'
import type { ApiKeyUsageLog } from '../ports.js'
import { run } from './builders.js'

/** Opens a fresh, empty usage log for one test, and closes it afterwards. */
export type OpenApiKeyUsageLog = () => Promise<{ log: ApiKeyUsageLog; close: () => Promise<void> }>

const at = (iso: string) => new Date(iso)
const calls = (keyId: string, operation: string, n: number, lastCalledAt: string): OperationCalls => ({
  keyId,
  operation,
  calls: n,
  lastCalledAt: at(lastCalledAt),
})

/** The behaviour every ApiKeyUsageLog adapter must show; run it from each adapter's tests. */
export const describeApiKeyUsageLogContract = (adapter: string, open: OpenApiKeyUsageLog) =>
  describe(`ApiKeyUsageLog contract (${adapter})`, () => {
    let ctx: Awaited<ReturnType<OpenApiKeyUsageLog>>
    beforeEach(async () => {
      ctx = await open()
    })
    afterEach(async () => {
      await ctx.close()
    })

    it('lists nothing when nothing was added, also after an empty batch', async () => {
      expect(await run(ctx.log.list())).toEqual([])
      await run(ctx.log.add([]))
      expect(await run(ctx.log.list())).toEqual([])
    })

    it('adds up the calls of each key and operation across batches', async () => {
      await run(ctx.log.add([calls('1', 'getPet', 2, '2026-11-22T12:00:00Z')]))
      await run(ctx.log.add([calls('1', 'getPet', 3, '2026-11-22T12:00:05Z')]))
      expect(await run(ctx.log.list())).toEqual([calls('1', 'getPet', 5, '2026-11-22T12:00:05Z')])
    })

    it('counts every entry of a batch, also several of the same key and operation', async () => {
      await run(
        ctx.log.add([
          calls('env-1', 'getPet', 1, '2026-11-22T12:00:01Z'),
          calls('env-1', 'getPet', 1, '2026-11-22T12:00:03Z'),
          calls('env-1', 'getPet', 1, '2026-11-22T12:00:02Z'),
        ]),
      )
      expect(await run(ctx.log.list())).toEqual([calls('env-1', 'getPet', 3, '2026-11-22T12:00:03Z')])
    })

    it('never moves the last call back when an older one is added later', async () => {
      await run(ctx.log.add([calls('1', 'listPets', 1, '2026-11-22T12:00:10Z')]))
      await run(ctx.log.add([calls('1', 'listPets', 1, '2026-11-22T12:00:00Z')]))
      expect(await run(ctx.log.list())).toEqual([calls('1', 'listPets', 2, '2026-11-22T12:00:10Z')])
    })

    it('keeps keys and operations apart, ordered by key id, then operation, as text', async () => {
      await run(
        ctx.log.add([
          calls('env-1', 'listPets', 1, '2026-11-22T12:00:00Z'),
          calls('2', 'getPet', 4, '2026-11-22T12:00:00Z'),
          calls('10', 'getPet', 1, '2026-11-22T12:00:00Z'),
          calls('2', 'createPet', 7, '2026-11-22T12:00:00Z'),
          calls('env-1', 'getPet', 2, '2026-11-22T12:00:00Z'),
        ]),
      )
      expect((await run(ctx.log.list())).map((c) => [c.keyId, c.operation, c.calls])).toEqual([
        ['10', 'getPet', 1],
        ['2', 'createPet', 7],
        ['2', 'getPet', 4],
        ['env-1', 'getPet', 2],
        ['env-1', 'listPets', 1],
      ])
    })

    it('keeps the time of the last call to the millisecond', async () => {
      await run(ctx.log.add([calls('1', 'getPet', 1, '2026-11-22T12:34:56.789Z')]))
      const [entry] = await run(ctx.log.list())
      expect(entry?.lastCalledAt.toISOString()).toBe('2026-11-22T12:34:56.789Z')
    })

    it('counts beyond 2^32 calls exactly', async () => {
      await run(ctx.log.add([calls('1', 'getPet', 3_000_000_000, '2026-11-22T12:00:00Z')]))
      await run(ctx.log.add([calls('1', 'getPet', 3_000_000_001, '2026-11-22T12:00:00Z')]))
      expect((await run(ctx.log.list()))[0]?.calls).toBe(6_000_000_001)
    })

    it('loses no call when many batches of the same keys are added at once', async () => {
      const keys = ['1', '2', '3', 'env-1']
      // Each batch names the keys in another order, as two processes flushing together would.
      const rotated = (i: number) => [...keys.slice(i % keys.length), ...keys.slice(0, i % keys.length)]
      const batches = Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? rotated(i) : rotated(i).reverse()).map((k) =>
          calls(k, 'getPet', 1, '2026-11-22T12:00:00Z'),
        ),
      )
      await Promise.all(batches.map((batch) => run(ctx.log.add(batch))))
      expect((await run(ctx.log.list())).map((c) => [c.keyId, c.calls])).toEqual(keys.map((k) => [k, 20]))
    })
  })
