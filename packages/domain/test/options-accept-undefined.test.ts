import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { authenticatorByDigest, type UnknownKeysOptions } from '../src/index.js'

// Every optional property of T, each given as undefined: a new option must be listed here (the object is
// typed with all of them), and one declared without `| undefined` fails the type check under
// exactOptionalPropertyTypes, as an embedder passing on a value of its own configuration would.
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]
type EveryOptionUndefined<T> = { readonly [K in OptionalKeys<T>]-?: undefined }

describe('an option given as undefined is its default, as one left out is', () => {
  it('authenticatorByDigest: a key a lookup found unknown is answered from memory for the next 10 s', async () => {
    let lookups = 0
    const options: EveryOptionUndefined<UnknownKeysOptions> = {
      forMs: undefined,
      maxKeys: undefined,
      now: undefined,
    }
    const authenticator = authenticatorByDigest(
      (key) => `d(${key})`,
      [
        {
          fromMemory: () => undefined,
          lookUp: () => {
            lookups++
            return TE.right(O.none)
          },
        },
      ],
      options,
    )
    expect(await authenticator.authenticate('wrong-key')()).toEqual({ _tag: 'Right', right: O.none })
    expect(authenticator.fromMemory?.('wrong-key')).toEqual(O.none)
    expect(await authenticator.authenticate('wrong-key')()).toEqual({ _tag: 'Right', right: O.none })
    expect(lookups).toBe(1)
  })
})
