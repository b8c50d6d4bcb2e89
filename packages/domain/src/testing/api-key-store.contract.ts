import * as O from 'fp-ts/lib/Option.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ApiKeyName } from '../api-key.js'
import type { ApiKeyStore } from '../ports.js'
import { run } from './builders.js'

/** Opens a fresh, empty key store for one test, and closes it afterwards. */
export type OpenApiKeyStore = () => Promise<{ store: ApiKeyStore; close: () => Promise<void> }>

const name = (s: string) => s as ApiKeyName

/** The behaviour every ApiKeyStore adapter must show; run it from each adapter's tests. */
export const describeApiKeyStoreContract = (adapter: string, open: OpenApiKeyStore) =>
  describe(`ApiKeyStore contract (${adapter})`, () => {
    let ctx: Awaited<ReturnType<OpenApiKeyStore>>
    beforeEach(async () => {
      ctx = await open()
    })
    afterEach(async () => {
      await ctx.close()
    })

    it('issues a key that then authenticates as its owner', async () => {
      const issued = await run(ctx.store.issue(name('billing service')))
      expect(issued.key.length).toBeGreaterThanOrEqual(32)
      expect(issued.record).toMatchObject({ name: 'billing service', revokedAt: null })
      expect(await run(ctx.store.authenticate(issued.key))).toEqual(
        O.some({ keyId: issued.record.id, name: 'billing service' }),
      )
    })

    it('issues a different key and id each time', async () => {
      const a = await run(ctx.store.issue(name('a')))
      const b = await run(ctx.store.issue(name('a')))
      expect(a.key).not.toBe(b.key)
      expect(a.record.id).not.toBe(b.record.id)
    })

    it('knows no key it did not issue, nor one that differs in case or by a character', async () => {
      const { key } = await run(ctx.store.issue(name('a')))
      for (const other of [
        '',
        'nope',
        key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
        key + 'x',
        key.slice(1),
        ` ${key}`,
      ])
        expect(await run(ctx.store.authenticate(other))).toEqual(O.none)
    })

    it('lists issued keys with their names and dates, never the key', async () => {
      const a = await run(ctx.store.issue(name('first')))
      const b = await run(ctx.store.issue(name('second')))
      const listed = await run(ctx.store.list())
      expect(listed.map((r) => r.id)).toEqual([a.record.id, b.record.id])
      expect(listed.map((r) => r.name)).toEqual(['first', 'second'])
      expect(listed.every((r) => r.createdAt instanceof Date)).toBe(true)
      const shown = JSON.stringify(listed)
      expect(shown).not.toContain(a.key)
      expect(shown).not.toContain(b.key)
    })

    it('records when a key was last used', async () => {
      const issued = await run(ctx.store.issue(name('a')))
      expect(issued.record.lastUsedAt).toBeNull()
      await run(ctx.store.authenticate(issued.key))
      const [record] = await run(ctx.store.list())
      expect(record?.lastUsedAt).toBeInstanceOf(Date)
    })

    it('refuses a revoked key from the next call on, and keeps the others', async () => {
      const revoked = await run(ctx.store.issue(name('old')))
      const kept = await run(ctx.store.issue(name('new')))
      expect(O.isSome(await run(ctx.store.authenticate(revoked.key)))).toBe(true)
      const result = await run(ctx.store.revoke(revoked.record.id))
      expect(O.isSome(result) && result.value.revokedAt).toBeInstanceOf(Date)
      expect(await run(ctx.store.authenticate(revoked.key))).toEqual(O.none)
      expect(O.isSome(await run(ctx.store.authenticate(kept.key)))).toBe(true)
      const listed = await run(ctx.store.list())
      expect(listed.find((r) => r.id === revoked.record.id)?.revokedAt).toBeInstanceOf(Date)
      expect(listed.find((r) => r.id === kept.record.id)?.revokedAt).toBeNull()
    })

    it('answers from memory, where it does, exactly as authenticate: issued, unknown and revoked keys', async () => {
      const kept = await run(ctx.store.issue(name('kept')))
      const revoked = await run(ctx.store.issue(name('revoked')))
      await run(ctx.store.revoke(revoked.record.id))
      // An adapter that looks every key up has no fromMemory, or answers undefined: nothing to compare.
      for (const key of [kept.key, revoked.key, 'nope', `${kept.key}x`]) {
        const fromMemory = ctx.store.fromMemory?.(key)
        if (fromMemory !== undefined) expect(fromMemory).toEqual(await run(ctx.store.authenticate(key)))
      }
    })

    it('revokes nothing for an unknown id or a key already revoked', async () => {
      const issued = await run(ctx.store.issue(name('a')))
      expect(await run(ctx.store.revoke('999999'))).toEqual(O.none)
      expect(await run(ctx.store.revoke('not-an-id'))).toEqual(O.none)
      await run(ctx.store.revoke(issued.record.id))
      expect(await run(ctx.store.revoke(issued.record.id))).toEqual(O.none)
    })
  })
