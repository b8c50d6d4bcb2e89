import type { ApiKeyOwner, Authenticator, StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { hash } from 'node:crypto'

/** What rememberUnknownKeys needs. */
export type UnknownKeysOptions = {
  /** Whether keys are looked up by a query right now: only then is remembering worth it. */
  readonly lookingUp: () => boolean
  /** How long an unknown key is answered from memory; 10 s unless given. */
  readonly forMs?: number
  /** The most keys remembered; past it, the oldest are forgotten. 10,000 unless given. */
  readonly maxKeys?: number
  /** Milliseconds on a clock that never goes back; performance.now unless given. */
  readonly now?: () => number
}

const UNKNOWN: E.Either<StoreUnavailable, O.Option<ApiKeyOwner>> = E.right(O.none)

/**
 * Remembers, for a short while, the SHA-256 digests of keys the store did not know, while the store
 * looks keys up by a query (`lookingUp`): a client that retries a wrong or revoked key in a loop
 * then costs one query per `forMs`, not one per request. Nothing is remembered of a known key, nor
 * of an answer the store could not give (503). A key unknown now only becomes known by being
 * issued anew, and a new key is random: remembering its digest for seconds refuses nobody.
 */
export const rememberUnknownKeys = (
  authenticator: Authenticator,
  { lookingUp, forMs = 10_000, maxKeys = 10_000, now = () => performance.now() }: UnknownKeysOptions,
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
  return {
    authenticate: (key) => {
      if (!lookingUp()) return authenticator.authenticate(key)
      return async () => {
        const digest = hash('sha256', key, 'base64')
        const until = unknownUntil.get(digest)
        if (until !== undefined) {
          if (until > now()) return UNKNOWN
          unknownUntil.delete(digest)
        }
        const found = await authenticator.authenticate(key)()
        if (E.isRight(found) && O.isNone(found.right)) remember(digest)
        return found
      }
    },
  }
}
