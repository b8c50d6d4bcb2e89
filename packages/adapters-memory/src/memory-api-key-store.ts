import type { ApiKeyId, ApiKeyRecord, ApiKeyStore, IssuedApiKey } from '@pets/domain'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { randomBytes } from 'node:crypto'
import { sameDigest, sha256Hex } from './sha256.js'

/** Keys to trust from the start, such as those of API_KEYS, each with a name for logs. */
export type KnownApiKey = { readonly key: string; readonly name: string }

/** How to set up an in-memory API-key store; every field is optional. */
export type MemoryApiKeyStoreOptions = {
  readonly keys?: ReadonlyArray<KnownApiKey>
  /** Prefix of the ids of this store's keys, to tell them apart from another store's. */
  readonly idPrefix?: string
  readonly now?: () => Date
}

type Entry = { record: ApiKeyRecord; readonly digest: string }

/** Makes a new API key: 32 random bytes, base64url, 43 characters. */
export const generateApiKey = (): string => randomBytes(32).toString('base64url')

/**
 * An API-key store in memory. It keeps only SHA-256 digests: the plain key exists only in the
 * caller's hands (and once, when issued).
 */
export const createMemoryApiKeyStore = (options: MemoryApiKeyStoreOptions = {}): ApiKeyStore => {
  const now = options.now ?? (() => new Date())
  const prefix = options.idPrefix ?? ''
  const byDigest = new Map<string, Entry>()
  const byId = new Map<ApiKeyId, Entry>()
  let lastId = 0

  const add = (key: string, name: string): Entry => {
    const record: ApiKeyRecord = {
      id: `${prefix}${++lastId}`,
      name,
      createdAt: now(),
      revokedAt: null,
      lastUsedAt: null,
    }
    const entry = { record, digest: sha256Hex(key) }
    byDigest.set(entry.digest, entry)
    byId.set(record.id, entry)
    return entry
  }
  for (const { key, name } of options.keys ?? []) add(key, name)

  return {
    authenticate: (apiKey) =>
      TE.fromIO(() => {
        // The lookup is by digest, which tells an attacker nothing about the key; the final
        // comparison is in constant time all the same.
        const digest = sha256Hex(apiKey)
        const entry = byDigest.get(digest)
        if (entry === undefined || entry.record.revokedAt !== null || !sameDigest(entry.digest, digest))
          return O.none
        entry.record = { ...entry.record, lastUsedAt: now() }
        return O.some({ keyId: entry.record.id, name: entry.record.name })
      }),
    issue: (name) =>
      TE.fromIO((): IssuedApiKey => {
        const key = generateApiKey()
        return { key, record: add(key, name).record }
      }),
    list: () => TE.fromIO(() => [...byId.values()].map((e) => e.record)),
    revoke: (id) =>
      TE.fromIO(() => {
        const entry = byId.get(id)
        if (entry === undefined || entry.record.revokedAt !== null) return O.none
        entry.record = { ...entry.record, revokedAt: now() }
        return O.some(entry.record)
      }),
  }
}
