import type { EveryOptionUndefined } from '@pets/domain/testing'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import {
  buildOpenApiDocument,
  createHttpApp,
  createOperationsApp,
  createPetsRouter,
  createTokenBucketRateLimiter,
  inOrder,
  type HttpAppOptions,
  type HttpLogger,
  type InOrderOptions,
  type OpenApiServer,
  type Operations,
  type OperationsAppOptions,
  type PetsRouterOptions,
  type TokenBucketOptions,
} from '../src/index.js'
import { fetchOf, type FetchOfOptions } from '../src/testing/index.js'
import { appOptions, KEY } from './serve.js'

const routerOptions: EveryOptionUndefined<PetsRouterOptions> = {
  prefix: undefined,
  rateLimiter: undefined,
  bodyTimeoutMs: undefined,
  authFailureLimiter: undefined,
  trustedProxies: undefined,
}
const appOnly: EveryOptionUndefined<HttpAppOptions> = {
  ...routerOptions,
  logger: undefined,
  operations: undefined,
  servers: undefined,
  tracer: undefined,
}
const noOperations: EveryOptionUndefined<Operations> = {
  ready: undefined,
  metrics: undefined,
  observe: undefined,
}
const AUTH = { Authorization: `Bearer ${KEY}` }

describe('an option given as undefined is its default, as one left out is', () => {
  it('createHttpApp and fetchOf: /v1, no limits, the publicBaseUrl as the server, ready, no /metrics', async () => {
    const fetchOptions: EveryOptionUndefined<FetchOfOptions> = { remoteAddress: undefined }
    const fetch = fetchOf(createHttpApp(appOptions(appOnly)), fetchOptions)
    expect((await fetch('/v1/pets', { headers: AUTH })).status).toBe(200)
    expect((await fetch('/v1/pets')).status).toBe(401)
    const document = (await (await fetch('/openapi.json')).json()) as { servers: unknown }
    expect(document.servers).toEqual([{ url: 'https://api.example.com/v1' }])
    expect((await fetch('/readyz')).status).toBe(200)
    expect((await fetch('/metrics')).status).toBe(404)
  })

  it("a logger's and the operations' optional methods: the request line goes to info, /readyz is 200", async () => {
    const lines: Array<string> = []
    const logger: HttpLogger & EveryOptionUndefined<HttpLogger> = {
      info: (_, message) => void lines.push(message),
      error: (_, message) => void lines.push(message),
      request: undefined,
      isLevelEnabled: undefined,
    }
    const fetch = fetchOf(createHttpApp(appOptions({ logger, operations: noOperations })))
    expect((await fetch('/readyz')).status).toBe(200)
    expect((await fetch('/metrics')).status).toBe(404)
    expect(lines).toEqual(['request', 'request'])
  })

  it('createOperationsApp: silent, its endpoints served', async () => {
    const options: OperationsAppOptions & EveryOptionUndefined<OperationsAppOptions> = {
      operations: noOperations,
      logger: undefined,
      tracer: undefined,
    }
    const fetch = fetchOf(createOperationsApp(options))
    expect((await fetch('/healthz')).status).toBe(200)
    expect((await fetch('/readyz')).status).toBe(200)
  })

  it('createPetsRouter: mounted under /v1', async () => {
    const router = createPetsRouter({ ...appOptions(), ...routerOptions })
    const passed: Array<string> = []
    const ctx = { method: 'GET', path: '/elsewhere', url: '/elsewhere', state: {} }
    await router(ctx as never, async () => void passed.push(ctx.path))
    expect(passed).toEqual(['/elsewhere'])
  })

  it('createTokenBucketRateLimiter and inOrder', () => {
    const bucket: EveryOptionUndefined<TokenBucketOptions> = { now: undefined, maxKeys: undefined }
    const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 1, ...bucket })
    expect(limiter.take('a').allowed).toBe(true)
    expect(limiter.take('a').allowed).toBe(false)
    const order: EveryOptionUndefined<InOrderOptions> = { onOverflow: undefined, maxWaitingBytes: undefined }
    const handled: Array<string> = []
    inOrder((req: IncomingMessage) => void handled.push(req.url ?? ''), order)(
      { url: '/a' } as IncomingMessage,
      { socket: {} } as ServerResponse,
    )
    expect(handled).toEqual(['/a'])
  })

  it('buildOpenApiDocument: a server whose description is undefined has none, as one without', () => {
    const server: OpenApiServer & EveryOptionUndefined<OpenApiServer> = {
      url: 'https://api.example.com/v1',
      description: undefined,
    }
    expect(buildOpenApiDocument({ servers: [server] }).servers).toStrictEqual([
      { url: 'https://api.example.com/v1' },
    ])
  })
})
