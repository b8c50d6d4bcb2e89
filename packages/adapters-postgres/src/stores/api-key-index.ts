import type { ApiKeyId, ApiKeyOwner } from '@pets/domain'

/** An active key as the index keeps it: its id, name and SHA-256 digest (lower-case hex). */
export type ActiveApiKey = { readonly id: ApiKeyId; readonly name: string; readonly digest: string }

/** The active keys of one process, by digest: what authenticates a request without a query. */
export type ApiKeyIndex = {
  /** The owner of the key with this SHA-256 digest (lower-case hex), if it is active. */
  readonly find: (digest: string) => ApiKeyOwner | undefined
  /** Makes the index hold exactly these keys. */
  readonly replace: (keys: ReadonlyArray<ActiveApiKey>) => void
  readonly add: (key: ActiveApiKey) => void
  readonly remove: (id: ApiKeyId) => void
}

/** An empty index; keys are looked up by digest, which tells a timing attacker nothing about the key. */
export const createApiKeyIndex = (): ApiKeyIndex => {
  let byDigest = new Map<string, ApiKeyOwner>()
  let digestById = new Map<ApiKeyId, string>()
  const put = (key: ActiveApiKey) => {
    byDigest.set(key.digest, { keyId: key.id, name: key.name })
    digestById.set(key.id, key.digest)
  }
  return {
    find: (digest) => byDigest.get(digest),
    replace: (keys) => {
      byDigest = new Map()
      digestById = new Map()
      for (const key of keys) put(key)
    },
    add: put,
    remove: (id) => {
      const digest = digestById.get(id)
      if (digest === undefined) return
      digestById.delete(id)
      byDigest.delete(digest)
    },
  }
}
