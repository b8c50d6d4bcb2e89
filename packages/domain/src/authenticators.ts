import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Authenticator } from './ports.js'

/** An authenticator that accepts a key when any of `authenticators` does, asking them in order. */
export const anyAuthenticator = (...authenticators: ReadonlyArray<Authenticator>): Authenticator => ({
  authenticate: (apiKey) =>
    authenticators.reduce<ReturnType<Authenticator['authenticate']>>(
      (found, next) =>
        TE.flatMap(
          found,
          O.match(
            () => next.authenticate(apiKey),
            (owner) => TE.right(O.some(owner)),
          ),
        ),
      TE.right(O.none),
    ),
})
