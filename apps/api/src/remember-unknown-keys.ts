import type { ApiKeyOwner, Authenticator, StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { hash } from 'node:crypto'

/** What rememberUnknownKeys needs. */
export type UnknownKeysOptions = {
  /** How long an unknown key is answered from memory; 10 s unless given. */
  readonly forMs?: number
  /** The most keys remembered; past it, the oldest are forgotten. 10,000 unless given. */
  readonly maxKeys?: number
  /** Milliseconds on a clock that never goes back; performance.now unless given. */
  readonly now?: () => number
}

/**
 * Remembers, for a short while, the SHA-256 digests of keys that a lookup in the store found
 * unknown: a client that retries a wrong or revoked key in a loop then costs one query per
 * `forMs`, not one per request, and its retries are answered from memory (`fromMemory`), where no
 * limit applies. A key the authenticator answers from memory itself is never looked up, so never
 * remembered. Nothing is remembered of a known key, nor of an answer the store could not give
 * (503). A key unknown now only becomes known by being issued anew, and a new key is random:
 * remembering its digest for seconds refuses nobody.
 */
export const rememberUnknownKeys = (
  authenticator: Authenticator,
  { forMs = 10_000, maxKeys = 10_000, now = () => performance.now() }: UnknownKeysOptions = {},
): Authenticator => {
  const unknownUntil = new Map<string, number>()
  const remember = (digest: string) => {
    if (unknownUntil.size >= maxKeys)
      for (const old of unknownUntil.keys()) {
        unknownUntil.delete(old)
        if (unknownUntil.size < maxKeys * 0.9) break
      }
    unknownUntil.set(digest, now() + forMs)
  }
  const remembered = (digest: string): boolean => {
    const until = unknownUntil.get(digest)
    if (until === undefined) return false
    if (until > now()) return true
    unknownUntil.delete(digest)
    return false
  }
  const fromMemory = (key: string): O.Option<ApiKeyOwner> | undefined =>
    authenticator.fromMemory?.(key) ?? (remembered(hash('sha256', key, 'base64')) ? O.none : undefined)
  return {
    fromMemory,
    authenticate: (key) => async (): Promise<E.Either<StoreUnavailable, O.Option<ApiKeyOwner>>> => {
      const known = fromMemory(key)
      if (known !== undefined) return E.right(known)
      const found = await authenticator.authenticate(key)()
      if (E.isRight(found) && O.isNone(found.right)) remember(hash('sha256', key, 'base64'))
      return found
    },
  }
}
