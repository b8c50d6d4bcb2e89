import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import { anyAuthenticator, storeUnavailable, type ApiKeyOwner, type Authenticator } from '../src/index.js'

// A fake that knows one key, or is down, and records every key it was asked about. With
// `inMemory`, it also answers from memory (unless it is down, when only a lookup could tell).
const fake = (knows: { key: string; owner: ApiKeyOwner } | 'down' | 'nothing', inMemory = false) => {
  const asked: Array<string> = []
  const answer = (apiKey: string) =>
    knows !== 'down' && knows !== 'nothing' && knows.key === apiKey ? O.some(knows.owner) : O.none
  const authenticator: Authenticator = {
    authenticate: (apiKey) =>
      TE.fromIOEither(() => {
        asked.push(apiKey)
        return knows === 'down' ? E.left(storeUnavailable()) : E.right(answer(apiKey))
      }),
    ...(inMemory ? { fromMemory: (apiKey) => (knows === 'down' ? undefined : answer(apiKey)) } : {}),
  }
  return { authenticator, asked }
}

const alice: ApiKeyOwner = { keyId: 'env-1', name: 'alice' }
const bob: ApiKeyOwner = { keyId: '7', name: 'bob' }

describe('anyAuthenticator', () => {
  it('asks each authenticator in order until one knows the key, and answers its owner', async () => {
    const first = fake('nothing')
    const second = fake({ key: 'k', owner: alice })
    const third = fake({ key: 'k', owner: bob })
    const any = anyAuthenticator(first.authenticator, second.authenticator, third.authenticator)
    expect(await any.authenticate('k')()).toEqual(E.right(O.some(alice)))
    expect(first.asked).toEqual(['k'])
    expect(second.asked).toEqual(['k'])
    expect(third.asked).toEqual([])
  })

  it('answers none when no authenticator knows the key, after asking them all', async () => {
    const first = fake({ key: 'a', owner: alice })
    const second = fake({ key: 'b', owner: bob })
    const any = anyAuthenticator(first.authenticator, second.authenticator)
    expect(await any.authenticate('c')()).toEqual(E.right(O.none))
    expect(first.asked).toEqual(['c'])
    expect(second.asked).toEqual(['c'])
  })

  it("makes every authenticator's task when its own is made (a port reads its caller's context then)", async () => {
    const made: Array<string> = []
    const making = (name: string, found: O.Option<ApiKeyOwner>): Authenticator => ({
      authenticate: () => {
        made.push(name)
        return TE.right(found)
      },
    })
    const task = anyAuthenticator(making('first', O.none), making('second', O.some(bob))).authenticate('k')
    expect(made).toEqual(['first', 'second'])
    expect(await task()).toEqual(E.right(O.some(bob)))
  })

  it('answers none when it has no authenticator at all', async () => {
    expect(await anyAuthenticator().authenticate('k')()).toEqual(E.right(O.none))
  })

  it('passes StoreUnavailable through and asks no further authenticator', async () => {
    const down = fake('down')
    const later = fake({ key: 'k', owner: bob })
    const any = anyAuthenticator(down.authenticator, later.authenticator)
    expect(await any.authenticate('k')()).toEqual(E.left({ _tag: 'StoreUnavailable' }))
    expect(later.asked).toEqual([])
  })

  it('does not ask a store that is down once an earlier authenticator knows the key', async () => {
    const known = fake({ key: 'k', owner: alice })
    const down = fake('down')
    const any = anyAuthenticator(known.authenticator, down.authenticator)
    expect(await any.authenticate('k')()).toEqual(E.right(O.some(alice)))
    expect(down.asked).toEqual([])
  })

  it('asks nobody until the task is run', async () => {
    const only = fake({ key: 'k', owner: alice })
    const task = anyAuthenticator(only.authenticator).authenticate('k')
    expect(only.asked).toEqual([])
    await task()
    expect(only.asked).toEqual(['k'])
  })
})

describe('anyAuthenticator.fromMemory', () => {
  it('answers from memory when every authenticator up to the one that knows the key answers from memory', () => {
    const any = anyAuthenticator(
      fake('nothing', true).authenticator,
      fake({ key: 'k', owner: bob }, true).authenticator,
    )
    expect(any.fromMemory?.('k')).toEqual(O.some(bob))
    expect(any.fromMemory?.('other')).toEqual(O.none)
  })

  it('stops at the first that knows the key: a later store that only looks keys up is not consulted', () => {
    const any = anyAuthenticator(
      fake({ key: 'k', owner: alice }, true).authenticator,
      fake('nothing').authenticator,
    )
    expect(any.fromMemory?.('k')).toEqual(O.some(alice))
  })

  it('cannot tell (undefined) when a key unknown so far must still be looked up somewhere', () => {
    expect(
      anyAuthenticator(fake('nothing', true).authenticator, fake('nothing').authenticator).fromMemory?.('k'),
    ).toBe(undefined)
    expect(anyAuthenticator(fake('down', true).authenticator).fromMemory?.('k')).toBe(undefined)
  })

  it('never runs a lookup', () => {
    const lookedUp = fake({ key: 'k', owner: alice }, true)
    anyAuthenticator(lookedUp.authenticator).fromMemory?.('k')
    expect(lookedUp.asked).toEqual([])
  })
})
