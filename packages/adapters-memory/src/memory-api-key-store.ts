import type { ApiKeyId, ApiKeyOwner, ApiKeyRecord, ApiKeyStore, IssuedApiKey, KeyLookup } from '@pets/domain'
import { apiKeyDigest, generateApiKey } from '@pets/wire/api-key-secret'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'

/** Keys to trust from the start, such as those of API_KEYS, each with a name (and an id) for logs. */
export type KnownApiKey = { readonly key: string; readonly name: string; readonly id?: string | undefined }

/** How to set up an in-memory API-key store; every field is optional. */
export type MemoryApiKeyStoreOptions = {
  readonly keys?: ReadonlyArray<KnownApiKey> | undefined
  /** Prefix of the ids of this store's keys, to tell them apart from another store's. */
  readonly idPrefix?: string | undefined
  readonly now?: (() => Date) | undefined
}

// Answers made once, the last use a number dated only when read: a request allocates only its digest.
type Entry = {
  record: ApiKeyRecord
  readonly owner: ApiKeyOwner
  readonly known: Promise<E.Either<never, O.Option<ApiKeyOwner>>>
  readonly some: O.Option<ApiKeyOwner>
  lastUsedMs: number | null
}

const UNKNOWN: Promise<E.Either<never, O.Option<ApiKeyOwner>>> = Promise.resolve(E.right(O.none))

const recordOf = (entry: Entry): ApiKeyRecord =>
  entry.lastUsedMs === null ? entry.record : { ...entry.record, lastUsedAt: new Date(entry.lastUsedMs) }

/** The store, and its keys by digest for a storage's authenticator. */
export type MemoryApiKeyStore = ApiKeyStore & { readonly byDigest: KeyLookup }

/** An API-key store in memory; it keeps only SHA-256 digests, never a plain key. */
export const createMemoryApiKeyStore = (options: MemoryApiKeyStoreOptions = {}): MemoryApiKeyStore => {
  const now = options.now ?? (() => new Date())
  const nowMs = options.now === undefined ? Date.now : () => now().getTime()
  const prefix = options.idPrefix ?? ''
  const byDigest = new Map<string, Entry>()
  const byId = new Map<ApiKeyId, Entry>()
  let lastId = 0

  const add = (key: string, name: string, id?: string): Entry => {
    const record: ApiKeyRecord = {
      id: id ?? `${prefix}${++lastId}`,
      name,
      createdAt: now(),
      revokedAt: null,
      lastUsedAt: null,
    }
    const owner: ApiKeyOwner = { keyId: record.id, name }
    const some = O.some(owner)
    const entry: Entry = {
      record,
      owner,
      known: Promise.resolve(E.right(some)),
      some,
      lastUsedMs: null,
    }
    byDigest.set(apiKeyDigest(key), entry)
    byId.set(record.id, entry)
    return entry
  }
  for (const { key, name, id } of options.keys ?? []) add(key, name, id)

  // Looked up by digest: its timing tells about digests, never a key, so no constant-time compare.
  const use = (digest: string): Entry | undefined => {
    const entry = byDigest.get(digest)
    if (entry === undefined || entry.record.revokedAt !== null) return undefined
    entry.lastUsedMs = nowMs()
    return entry
  }
  const fromMemory = (digest: string) => use(digest)?.some ?? O.none

  return {
    authenticate: (apiKey) => () => use(apiKeyDigest(apiKey))?.known ?? UNKNOWN,
    fromMemory: (apiKey) => fromMemory(apiKeyDigest(apiKey)),
    byDigest: { fromMemory, lookUp: (digest) => () => use(digest)?.known ?? UNKNOWN },
    issue: (name) =>
      TE.fromIO((): IssuedApiKey => {
        const key = generateApiKey()
        return { key, record: add(key, name).record }
      }),
    list: () => TE.fromIO(() => [...byId.values()].map(recordOf)),
    revoke: (id) =>
      TE.fromIO(() => {
        const entry = byId.get(id)
        if (entry === undefined || entry.record.revokedAt !== null) return O.none
        entry.record = { ...entry.record, revokedAt: now() }
        return O.some(recordOf(entry))
      }),
  }
}
