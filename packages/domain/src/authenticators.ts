import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { ApiKeyOwner } from './api-key.js'
import type { Authenticator } from './ports.js'

/** An authenticator that accepts a key when any of `authenticators` does, asking them in order. */
export const anyAuthenticator = (...authenticators: ReadonlyArray<Authenticator>): Authenticator => ({
  // A loop, not a chain of TaskEithers: each link would cost a promise, on every request.
  // Each one's task made when this one's is (a port may read its caller's context then), run in turn.
  authenticate: (apiKey) => {
    const tasks = authenticators.map((authenticator) => authenticator.authenticate(apiKey))
    return async () => {
      for (const task of tasks) {
        const found = await task()
        if (E.isLeft(found) || O.isSome(found.right)) return found
      }
      return E.right(O.none)
    }
  },
  // Memory decides only when each authenticator before the one that knows the key said no from memory.
  fromMemory: (apiKey) => {
    for (const authenticator of authenticators) {
      const found: O.Option<ApiKeyOwner> | undefined = authenticator.fromMemory?.(apiKey)
      if (found === undefined || O.isSome(found)) return found
    }
    return O.none
  },
})
