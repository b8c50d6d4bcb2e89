import { createHash, randomBytes } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  authenticatorByDigest,
  type ApiKeyId,
  type ApiKeyOwner,
  type ApiKeyRecord,
  type OperationCalls,
  type Pet,
  type PetId,
  type Storage,
} from '../src/index.js'
import {
  describeApiKeyStoreContract,
  describeApiKeyUsageLogContract,
  describeIdempotentPetCreationsContract,
  describePetRepositoryContract,
  describeStorageContract,
} from '../src/testing/index.js'

/**
 * The recipe of ARCHITECTURE.md ("Adding a third storage adapter"), followed in a test: a storage
 * written against the ports alone, over one ordered key-value map, as an adapter for a key-value
 * store would be, and nothing shared with adapters-memory. Steps 1 and 2: one function returns
 * the whole `Storage`; every port's contract suite and the storage's own pass on it.
 */
const createKeyValueStorage = (): Storage => {
  const kv = new Map<string, unknown>()
  const get = <A>(key: string) => kv.get(key) as A | undefined
  const scan = <A>(prefix: string) => [...kv].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v as A)
  const next = (counter: string) => {
    const n = (get<number>(counter) ?? 0) + 1
    kv.set(counter, n)
    return n
  }
  const digest = (key: string) => createHash('sha256').update(key).digest('hex')
  const ok = <A>(f: () => A) => TE.fromIO(f)
  // Ids only grow; the map keeps insertion order, so a scan of pets is in id order.
  const addPet = (data: Omit<Pet, 'id'>): Pet => {
    const pet = { id: next('seq:pet') as PetId, ...data }
    kv.set(`pet:${pet.id}`, pet)
    return pet
  }
  const pets: Storage['pets'] = {
    add: (data) => ok(() => addPet(data)),
    findById: (id) => ok(() => O.fromNullable(get<Pet>(`pet:${id}`))),
    list: ({ after, limit, status }) =>
      ok(() =>
        scan<Pet>('pet:')
          .filter((p) => p.id > after && (status === undefined || p.status === status))
          .slice(0, limit),
      ),
  }
  const recordOf = (id: string) => get<ApiKeyRecord & { digest: string }>(`key:${id}`)
  const shown = ({ digest: _, ...record }: ApiKeyRecord & { digest: string }): ApiKeyRecord => record
  // The owner of an active key by its digest, its use dated.
  const ownerByDigest = (d: string): O.Option<ApiKeyOwner> => {
    const record = recordOf(get<string>(`digest:${d}`) ?? '')
    if (record === undefined || record.revokedAt !== null) return O.none
    kv.set(`key:${record.id}`, { ...record, lastUsedAt: new Date() })
    return O.some({ keyId: record.id, name: record.name })
  }
  const apiKeys: Storage['apiKeys'] = {
    issue: (name) =>
      ok(() => {
        const key = randomBytes(32).toString('base64url')
        const record = {
          id: `kv-${next('seq:key')}` as ApiKeyId,
          name,
          createdAt: new Date(),
          revokedAt: null,
          lastUsedAt: null,
        }
        kv.set(`key:${record.id}`, { ...record, digest: digest(key) })
        kv.set(`digest:${digest(key)}`, record.id)
        return { key, record }
      }),
    authenticate: (key) => ok(() => ownerByDigest(digest(key))),
    list: () => ok(() => scan<ApiKeyRecord & { digest: string }>('key:').map(shown)),
    revoke: (id) =>
      ok(() => {
        const record = recordOf(id)
        if (record === undefined || record.revokedAt !== null) return O.none
        const revoked = { ...record, revokedAt: new Date() }
        kv.set(`key:${id}`, revoked)
        return O.some(shown(revoked))
      }),
  }
  const usageLog: Storage['usageLog'] = {
    add: (entries) =>
      ok(() => {
        for (const e of entries) {
          const seen = get<OperationCalls>(`usage:${e.keyId}\n${e.operation}`)
          kv.set(`usage:${e.keyId}\n${e.operation}`, {
            ...e,
            calls: (seen?.calls ?? 0) + e.calls,
            lastCalledAt:
              seen !== undefined && seen.lastCalledAt > e.lastCalledAt ? seen.lastCalledAt : e.lastCalledAt,
          })
        }
      }),
    list: () =>
      ok(() =>
        scan<OperationCalls>('usage:').sort((a, b) =>
          a.keyId === b.keyId ? (a.operation < b.operation ? -1 : 1) : a.keyId < b.keyId ? -1 : 1,
        ),
      ),
  }
  type Made = { fingerprint: string; pet: Pet; at: Date }
  const creations: Storage['creations'] = {
    // Looked up and written in one step when the task runs: tasks made together must not all see
    // the key free (the contract's 50 concurrent requests find a check-then-act race).
    addOnce:
      ({ owner, key, fingerprint, pet, at, expiredBefore }) =>
      async () => {
        const made = get<Made>(`once:${owner}\n${key}`)
        if (made !== undefined && made.at >= expiredBefore)
          return made.fingerprint === fingerprint
            ? E.right(made.pet)
            : E.left({ _tag: 'IdempotencyKeyReused' as const })
        const added = addPet(pet)
        kv.set(`once:${owner}\n${key}`, { fingerprint, pet: added, at })
        return E.right(added)
      },
    removeExpired: (before) =>
      ok(() => {
        const expired = [...kv].filter(([k, v]) => k.startsWith('once:') && (v as Made).at < before)
        for (const [k] of expired) kv.delete(k)
        return expired.length
      }),
  }
  return {
    pets,
    apiKeys,
    // Every key is in the map, so memory always tells.
    authenticator: authenticatorByDigest(digest, [
      { fromMemory: ownerByDigest, lookUp: (d) => ok(() => ownerByDigest(d)) },
    ]),
    usageLog,
    creations,
    health: { check: () => TE.right(undefined) },
    start: async () => {},
    close: async () => {},
  }
}

const opened = async () => {
  const storage = createKeyValueStorage()
  return { storage, close: storage.close }
}
describePetRepositoryContract('key-value recipe', async () => {
  const { storage, close } = await opened()
  return { repo: storage.pets, close }
})
describeApiKeyStoreContract('key-value recipe', async () => {
  const { storage, close } = await opened()
  return { store: storage.apiKeys, close }
})
describeApiKeyUsageLogContract('key-value recipe', async () => {
  const { storage, close } = await opened()
  return { log: storage.usageLog, close }
})
describeIdempotentPetCreationsContract('key-value recipe', async () => {
  const { storage, close } = await opened()
  return { creations: storage.creations, pets: storage.pets, close }
})
describeStorageContract('key-value recipe', async () => createKeyValueStorage())
