import type { EveryOptionUndefined } from '../src/testing/index.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { authenticatorByDigest, type UnknownKeysOptions } from '../src/index.js'

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
