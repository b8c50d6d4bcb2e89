import { createPostgresApiKeyStore, createPostgresDatabase } from '@pets/adapters-postgres'
import { openFreshDatabase } from '@pets/adapters-postgres/testing'
import type { ApiKeyName } from '@pets/domain'
import { run } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { listenForRevocationHeard } from '../src/commands/revocation-heard.js'
import { loadConfig } from '../src/config.js'

const closing: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const closable of closing.splice(0).reverse()) await closable.close()
})

// What `keys revoke` does around the revocation: it counts the key stores listening once the key is revoked.
describe('keys revoke, hearing the instances', () => {
  it('waits for a key store that began to listen while the command started, before the key was revoked', async () => {
    const fresh = await openFreshDatabase(inject('postgres'))
    closing.push(fresh)
    const config = loadConfig({ DATABASE_URL: fresh.url, API_KEYS: 'env-key' })
    if (E.isLeft(config)) throw new Error(config.left.join('; '))
    const { key, record } = await run(createPostgresApiKeyStore(fresh.db).issue('late' as ApiKeyName))
    const heard = await listenForRevocationHeard(config.right, fresh)
    closing.push(heard)
    // An instance starting now serves the key from memory until it hears of the revocation.
    const late = createPostgresApiKeyStore(fresh.db, { listen: { connectionString: fresh.url } })
    closing.push(late)
    await late.start()
    expect(late.fromMemory?.(key)).toEqual(O.some({ keyId: record.id, name: 'late' }))
    const revoked = await run(createPostgresApiKeyStore(fresh.db).revoke(record.id))
    const report = await heard.report(O.getOrElseW(() => record)(revoked))
    expect(report).toEqual({
      line: expect.stringMatching(
        new RegExp(
          `^Revoked key ${record.id} \\(late\\); refused by every instance: the 1 listening for key changes heard it within \\d+ ms\\.$`,
        ),
      ),
    })
    // Refused there: from memory, or by PostgreSQL while it reads the keys again.
    expect(await run(late.authenticate(key))).toEqual(O.none)
  })

  it('says the key is revoked, and that it cannot tell who heard, when the instances cannot be listed after it', async () => {
    const fresh = await openFreshDatabase(inject('postgres'))
    closing.push(fresh)
    const config = loadConfig({ DATABASE_URL: fresh.url, API_KEYS: 'env-key' })
    if (E.isLeft(config)) throw new Error(config.left.join('; '))
    const { record } = await run(createPostgresApiKeyStore(fresh.db).issue('gone' as ApiKeyName))
    // The command's pool, ended between the revocation and the listing: the revocation stands, the listing fails.
    const commandDb = createPostgresDatabase({ connectionString: fresh.url })
    const heard = await listenForRevocationHeard(config.right, commandDb)
    closing.push(heard)
    const revoked = await run(createPostgresApiKeyStore(commandDb.db).revoke(record.id))
    await commandDb.close()
    const report = await heard.report(O.getOrElseW(() => record)(revoked))
    expect(report).toEqual({
      line: `Revoked key ${record.id} (gone); each instance refuses it once it hears of the revocation (milliseconds).`,
      warning: expect.stringMatching(/^cannot hear which instances heard it: \S/),
    })
  })
})
