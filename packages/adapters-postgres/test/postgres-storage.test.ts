import type { ApiKeyId, ApiKeyName, PetId } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { describeStorageContract, run } from '@pets/domain/testing'
import * as O from 'fp-ts/lib/Option.js'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createPostgresStorage, type PostgresStorageOptions } from '../src/index.js'
import { openFreshDatabase, startTestPgBouncer, type TestPgBouncer } from '../src/testing/index.js'

// The storage module whole, as the service opens it: directly on PostgreSQL, and with its requests
// through PgBouncer in transaction mode (migrations and LISTEN on the direct URL).
const postgres = inject('postgres')
let bouncer: Promise<TestPgBouncer> | undefined
afterAll(async () => {
  await (await bouncer)?.stop()
})

const opener = (through: () => Promise<TestPgBouncer | undefined>) => async () => {
  const fresh = await openFreshDatabase(postgres)
  const pgbouncer = await through()
  const options: PostgresStorageOptions = {
    url: pgbouncer === undefined ? fresh.url : pgbouncer.through(fresh.url),
    directUrl: fresh.url,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 10_000,
    // The contract dates its idempotency records by instants of its own.
    idempotencyClock: 'request',
  }
  const storage = createPostgresStorage(options)
  let closing: Promise<void> | undefined
  return {
    ...storage,
    close: () =>
      (closing ??= (async () => {
        await storage.close()
        await fresh.close()
      })()),
  }
}

describeStorageContract(
  'postgres',
  opener(async () => undefined),
)
describeStorageContract(
  'postgres through PgBouncer',
  opener(() => (bouncer ??= startTestPgBouncer(postgres.url))),
)

describe("the PostgreSQL storage's authenticator", () => {
  it('trusts the keys it was given from memory, and remembers a key a query found unknown while the index of stored keys is down', async () => {
    const fresh = await openFreshDatabase(postgres)
    // Never started: the index of stored keys does not serve, so stored keys are looked up.
    const storage = createPostgresStorage({
      url: fresh.url,
      trustedKeys: [{ key: 'given-key', id: 'env-ops', name: 'ops' }],
    })
    try {
      const { authenticator } = storage
      expect(authenticator.fromMemory?.('given-key')).toEqual(O.some({ keyId: 'env-ops', name: 'ops' }))
      expect(authenticator.fromMemory?.('guess')).toBeUndefined()
      expect(await run(authenticator.authenticate('guess'))).toEqual(O.none)
      expect(authenticator.fromMemory?.('guess')).toEqual(O.none)
      const issued = await run(storage.apiKeys.issue('billing' as ApiKeyName))
      expect(authenticator.fromMemory?.(issued.key)).toBeUndefined()
      expect(await run(authenticator.authenticate(issued.key))).toEqual(
        O.some({ keyId: issued.record.id, name: 'billing' }),
      )
    } finally {
      await storage.close()
      await fresh.close()
    }
  })
})

describe("the PostgreSQL storage's lines for calls it cannot serve", () => {
  it("leave a request's call to whoever answers it, with its details, and say tried again later for background work", async () => {
    const lines: Array<{ message: string; operation: unknown }> = []
    // A port where nothing listens: every call is unavailable at once.
    const storage = createPostgresStorage({
      url: 'postgres://postgres@127.0.0.1:1/test',
      connectionTimeoutMs: 1_000,
      log: (_level, message, fields) => void lines.push({ message, operation: fields?.['operation'] }),
    })
    try {
      const calls = [
        storage.pets.findById(1 as PetId),
        storage.usageLog.add([
          { keyId: 'k' as ApiKeyId, operation: 'listPets', calls: 1, lastCalledAt: new Date() },
        ]),
        storage.creations.removeExpired(new Date()),
      ]
      const answers = []
      for (const call of calls) answers.push(await call())
      for (const answer of answers) expect(E.isLeft(answer)).toBe(true)
      // What the line of the request's 503 carries (adapters-http's serveRequests writes it).
      expect(answers[0]).toEqual(
        E.left(
          expect.objectContaining({
            _tag: 'StoreUnavailable',
            details: { operation: 'pets.findById', sqlstate: null, retried: false },
          }),
        ),
      )
      expect(lines.filter((line) => line.operation !== undefined)).toEqual([
        {
          operation: 'usageLog.add',
          message: 'PostgreSQL cannot serve this call now: background work, tried again later',
        },
        {
          operation: 'creations.removeExpired',
          message: 'PostgreSQL cannot serve this call now: background work, tried again later',
        },
      ])
    } finally {
      await storage.close()
    }
  })
})
