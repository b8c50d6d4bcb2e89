import { createMemoryApiKeyStore, createMemoryStorage, createSystemClock } from '@pets/adapters-memory'
import { createUseCases } from '@pets/domain'
import type Koa from 'koa'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createHttpApp, type RequestState } from '../src/index.js'

// The types the README names for what the package returns are its exports too: a host can write them down.
describe('the public types', () => {
  it('types createHttpApp as Koa<RequestState>, whose state a middleware of the host reads', () => {
    const app = createHttpApp({
      useCases: createUseCases({ storage: createMemoryStorage(), clock: createSystemClock() }),
      authenticator: createMemoryApiKeyStore(),
      publicBaseUrl: 'https://api.example.com/v1',
    })
    expectTypeOf(app).toEqualTypeOf<Koa<RequestState>>()
    expectTypeOf<RequestState['requestId']>().toEqualTypeOf<string | undefined>()
    expect(typeof app.callback()).toBe('function')
  })
})
