import { describe, expect, it } from 'vitest'
import { importOptionalPeer } from '../src/testing/optional-peer.js'

// A name no package has, in a variable, so that vite leaves the import to run time.
const missing = 'no-such-peer-of-pets'

describe("importOptionalPeer, which loads the ./testing entry's optional peer", () => {
  it('throws, for a peer not installed, an Error naming it and how to install it, with node’s as its cause', async () => {
    const error = await importOptionalPeer(missing, '^1.2.0', () => import(missing)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      message:
        `@pets/adapters-http/testing needs ${missing}, an optional peer dependency of @pets/adapters-http: ` +
        `install it beside it (${missing}@^1.2.0, a dev dependency is enough).`,
      cause: { code: 'ERR_MODULE_NOT_FOUND' },
    })
  })

  it('gives the peer once installed', async () => {
    const loaded = await importOptionalPeer('light-my-request', '^6.6.0', () => import('light-my-request'))
    expect(typeof loaded.default).toBe('function')
  })

  it('lets any other failure through as it is: one of the peer’s own imports missing, or its own error', async () => {
    const inner = Object.assign(new Error("Cannot find package 'cookie' imported from x"), {
      code: 'ERR_MODULE_NOT_FOUND',
    })
    const own = new SyntaxError('Unexpected token')
    for (const failure of [inner, own])
      await expect(importOptionalPeer(missing, '^1.2.0', () => Promise.reject(failure))).rejects.toBe(failure)
  })
})
