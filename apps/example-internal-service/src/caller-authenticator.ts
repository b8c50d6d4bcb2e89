import type { Authenticator } from '@pets/domain'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest()

/**
 * This service's own authentication port for the pets API it mounts: the internal services that
 * may call it, each with a token of its own. Only digests are kept, compared in constant time.
 */
export const createCallerAuthenticator = (callers: Readonly<Record<string, string>>): Authenticator => {
  const known = Object.entries(callers).map(([name, token]) => ({ name, digest: digest(token) }))
  return {
    authenticate: (token) =>
      TE.fromIO(() => {
        const sent = digest(token)
        const caller = known.find((k) => timingSafeEqual(k.digest, sent))
        return caller === undefined ? O.none : O.some({ keyId: `caller:${caller.name}`, name: caller.name })
      }),
  }
}
