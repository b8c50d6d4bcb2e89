import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiKeyOwner } from './api-key.js'
import type { StoreUnavailable } from './errors.js'
import type { Authenticator } from './ports.js'

/** Where keys are found by their digest: in memory, and, when memory cannot tell, by a lookup. */
export type KeyLookup = {
  /** The owner of the key with this digest, or none, from memory; undefined when only `lookUp` can tell. */
  readonly fromMemory: (digest: string) => O.Option<ApiKeyOwner> | undefined
  readonly lookUp: (digest: string) => TE.TaskEither<StoreUnavailable, O.Option<ApiKeyOwner>>
}

/** How long a key a lookup found unknown is answered from memory, and how many are kept. */
export type UnknownKeysOptions = {
  /** 10 s unless given. */
  readonly forMs?: number | undefined
  /** Past it, the oldest are forgotten; 10,000 unless given. */
  readonly maxKeys?: number | undefined
  /** Milliseconds on a clock that never goes back; performance.now unless given. */
  readonly now?: (() => number) | undefined
}

/** A key to trust from the start (such as one of API_KEYS), with the id and name to know it by. */
export type TrustedApiKey = { readonly key: string; readonly id: string; readonly name: string }

/**
 * The trusted keys, by digest: always answered from memory. A key that is not a non-empty string (an unset
 * environment variable, say) is refused with a TypeError naming its place, never the key.
 */
export const trustedKeysLookup = (
  keys: ReadonlyArray<TrustedApiKey>,
  digestOf: (key: string) => string,
): KeyLookup => {
  keys.forEach(({ key }, index) => {
    if (typeof key !== 'string' || key === '')
      throw new TypeError(
        `trustedKeys[${index}].key must be a non-empty string; it is ${key === '' ? 'empty' : typeof key}`,
      )
  })
  const owners = new Map(keys.map(({ key, id, name }) => [digestOf(key), O.some({ keyId: id, name })]))
  const fromMemory = (digest: string): O.Option<ApiKeyOwner> => owners.get(digest) ?? O.none
  return { fromMemory, lookUp: (digest) => async () => E.right(fromMemory(digest)) }
}

type Answer = E.Either<StoreUnavailable, O.Option<ApiKeyOwner>>
const UNKNOWN: Answer = E.right(O.none)

/**
 * One authenticator over several lookups, asked in order by the key's digest: memory first, a lookup
 * only where memory cannot tell. A key found unknown is answered from memory for `forMs`, so a retried
 * wrong key costs one query per `forMs`; new keys are random, so this refuses nobody.
 */
export const authenticatorByDigest = (
  digestOf: (key: string) => string,
  lookups: ReadonlyArray<KeyLookup>,
  { forMs = 10_000, maxKeys = 10_000, now = () => performance.now() }: UnknownKeysOptions = {},
): Authenticator => {
  let lastKey: string | undefined
  let lastDigest = ''
  const digest = (key: string) => {
    if (key !== lastKey) {
      lastKey = key
      lastDigest = digestOf(key)
    }
    return lastDigest
  }
  const unknownUntil = new Map<string, number>()
  const remembered = (d: string): boolean => {
    const until = unknownUntil.get(d)
    if (until === undefined) return false
    if (until > now()) return true
    unknownUntil.delete(d)
    return false
  }
  const remember = (d: string) => {
    if (unknownUntil.size >= maxKeys)
      for (const old of unknownUntil.keys()) {
        unknownUntil.delete(old)
        if (unknownUntil.size < maxKeys * 0.9) break
      }
    unknownUntil.set(d, now() + forMs)
  }
  // From memory alone: the first that knows the key, none once all said none, else undefined.
  const fromMemory = (d: string): O.Option<ApiKeyOwner> | undefined => {
    let undecided = false
    for (const lookup of lookups) {
      const found = lookup.fromMemory(d)
      if (found === undefined) undecided = true
      else if (O.isSome(found)) return found
    }
    return undecided && !remembered(d) ? undefined : O.none
  }
  return {
    fromMemory: (key) => fromMemory(digest(key)),
    authenticate: (key) => async () => {
      const d = digest(key)
      let lookedUp = false
      for (const lookup of lookups) {
        const inMemory = lookup.fromMemory(d)
        if (inMemory !== undefined) {
          if (O.isSome(inMemory)) return E.right(inMemory)
          continue
        }
        if (remembered(d)) continue
        const found = await lookup.lookUp(d)()
        if (E.isLeft(found) || O.isSome(found.right)) return found
        lookedUp = true
      }
      if (lookedUp) remember(d)
      return UNKNOWN
    },
  }
}
