import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Authenticator, PetRepository } from '@pets/domain'
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node'
import { StackContextManager } from '@opentelemetry/sdk-trace'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ServerResponse } from 'node:http'
import { connect } from 'node:net'
import Koa from 'koa'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createPetsRouter, type HttpAppOptions } from '../src/index.js'
import { endRequestSpan } from '../src/request-span.js'
import type { HttpContext } from '../src/request-state.js'
import { KEY, appOptions, raw, recordingLogger, serve } from './serve.js'
import { serveApp } from './support/memory-app.js'

const AUTH = { Authorization: `Bearer ${KEY}` }
const PARENT_TRACE = '0af7651916cd43dd8448eb211c80319c'
const PARENT_SPAN = 'b7ad6b7169203331'
const TRACEPARENT = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`

const exported = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] })
const unsampled = new NodeTracerProvider({
  sampler: new AlwaysOffSampler(),
  spanProcessors: [new SimpleSpanProcessor(exported)],
})

// The SDK as apps/api registers it: the provider, AsyncLocalStorage for the active span, W3C propagation.
beforeAll(() => provider.register())
afterAll(() => {
  trace.disable()
  context.disable()
  propagation.disable()
})

const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close()))
  exported.reset()
})
const start = async (overrides: Partial<HttpAppOptions> = {}) => {
  const logger = recordingLogger()
  const app = await serve(appOptions({ logger, ...overrides }))
  open.push(app)
  return { ...app, logger, port: Number(new URL(app.url).port) }
}
const spans = () => exported.getFinishedSpans()

describe('the server span of a request', () => {
  it('is named after the route template, carries the stable HTTP attributes, and its ids are in the log line', async () => {
    const app = await start()
    // A parameter getPet does not take: 400, a client's mistake, no error of the span.
    expect((await app.fetch('/v1/pets/7?x=1', { headers: AUTH })).status).toBe(400)
    const [span] = spans()
    expect(span?.name).toBe('GET /v1/pets/{petId}')
    expect(span?.kind).toBe(SpanKind.SERVER)
    expect(span?.parentSpanContext).toBeUndefined()
    expect(span?.instrumentationScope.name).toBe('@pets/adapters-http')
    expect(span?.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/v1/pets/{petId}',
      'http.response.status_code': 400,
      'url.scheme': 'http',
      'url.path': '/v1/pets/7',
      'url.query': 'x=1',
      'server.address': '127.0.0.1',
      'server.port': app.port,
      'client.address': '127.0.0.1',
    })
    expect(span?.status.code).toBe(SpanStatusCode.UNSET)
    const { traceId, spanId } = span!.spanContext()
    expect(app.logger.lines[0]?.fields).toMatchObject({ traceId, spanId, route: '/v1/pets/{petId}' })
  })

  it("says the target's path and query alone: never an absolute-form target's scheme, authority and credentials, nor a fragment", async () => {
    const app = await start()
    const send = async (target: string) =>
      (
        await raw(
          app.port,
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
        )
      ).split('\r\n')[0]!
    expect(await send('http://user:s3cret@127.0.0.1/v1/pets?limit=1')).toBe('HTTP/1.1 200 OK')
    expect(await send('https://127.0.0.1:8443/v1/pets/7#part')).toBe('HTTP/1.1 404 Not Found')
    expect(await send('/v1/pets?limit=2#part')).toBe('HTTP/1.1 200 OK')
    const [list, get, fragment] = spans()
    expect(list?.attributes).toMatchObject({ 'url.path': '/v1/pets', 'url.query': 'limit=1' })
    expect(JSON.stringify(list?.attributes)).not.toContain('s3cret')
    expect(get?.attributes['url.path']).toBe('/v1/pets/7')
    expect(get?.attributes['url.query']).toBeUndefined()
    expect(fragment?.attributes).toMatchObject({ 'url.path': '/v1/pets', 'url.query': 'limit=2' })
  })

  it("takes a valid traceparent as its parent, and ignores an invalid one (never an error's answer)", async () => {
    const app = await start()
    expect((await app.fetch('/v1/pets', { headers: { ...AUTH, traceparent: TRACEPARENT } })).status).toBe(200)
    const invalid = [
      'garbage',
      `00-${'0'.repeat(32)}-${PARENT_SPAN}-01`,
      `ff-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      `00-${PARENT_TRACE}-${PARENT_SPAN}`,
      `${TRACEPARENT}, ${TRACEPARENT}`,
      'x'.repeat(8000),
    ]
    for (const traceparent of invalid)
      expect((await app.fetch('/v1/pets', { headers: { ...AUTH, traceparent } })).status).toBe(200)
    const [child, ...roots] = spans()
    expect(child?.spanContext().traceId).toBe(PARENT_TRACE)
    expect(child?.parentSpanContext).toMatchObject({
      traceId: PARENT_TRACE,
      spanId: PARENT_SPAN,
      isRemote: true,
    })
    expect(roots).toHaveLength(invalid.length)
    for (const root of roots) {
      expect(root.parentSpanContext).toBeUndefined()
      expect(root.spanContext().traceId).not.toBe(PARENT_TRACE)
    }
  })

  it("follows a traceparent only with a key known in memory: a stranger's begins a trace of its own", async () => {
    const app = await start()
    const strangers = [
      { traceparent: TRACEPARENT },
      { traceparent: TRACEPARENT, Authorization: 'Bearer not-a-key' },
      { traceparent: TRACEPARENT, Authorization: `Basic ${KEY}` },
    ]
    for (const headers of strangers) expect((await app.fetch('/v1/pets', { headers })).status).toBe(401)
    expect((await app.fetch('/healthz', { headers: { traceparent: TRACEPARENT } })).status).toBe(200)
    expect(
      (
        await raw(
          app.port,
          `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
            `Authorization: Bearer ${KEY}\r\ntraceparent: ${TRACEPARENT}\r\nConnection: close\r\n\r\n`,
        )
      ).split('\r\n')[0],
    ).toBe('HTTP/1.1 401 Unauthorized')
    const roots = [...spans()]
    expect(roots).toHaveLength(strangers.length + 2)
    for (const root of roots) {
      expect(root.parentSpanContext).toBeUndefined()
      expect(root.spanContext().traceId).not.toBe(PARENT_TRACE)
    }
    expect(app.logger.lines.map((line) => line.fields['traceId'])).not.toContain(PARENT_TRACE)
    expect((await app.fetch('/v1/pets', { headers: { ...AUTH, traceparent: TRACEPARENT } })).status).toBe(200)
    await vi.waitFor(() =>
      expect(spans()[roots.length]?.parentSpanContext).toMatchObject({
        traceId: PARENT_TRACE,
        spanId: PARENT_SPAN,
      }),
    )
  })

  it('is named by the method alone when no route matched, and `HTTP` with `_OTHER` for a method of no convention', async () => {
    const app = await start()
    await app.fetch('/wp-admin/x.php?a=1')
    await app.fetch('/v1/pets', { method: 'PROPFIND', headers: AUTH })
    const [scan, other] = spans()
    expect(scan?.name).toBe('GET')
    expect(scan?.attributes['http.route']).toBeUndefined()
    expect(scan?.attributes).toMatchObject({
      'url.path': '/wp-admin/x.php',
      'http.response.status_code': 404,
    })
    expect(other?.name).toBe('HTTP')
    expect(other?.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PROPFIND',
      'http.response.status_code': 405,
    })
  })

  it("says a CONNECT's authority-form target as its host and port in url.path: never credentials", async () => {
    const app = await serveApp(appOptions())
    open.push(app)
    const answer = await raw(
      app.port,
      'CONNECT user:s3cret@example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 404 /)
    const [span] = spans()
    expect(span?.attributes['url.path']).toBe('example.com:443')
    expect(JSON.stringify(span?.attributes)).not.toContain('s3cret')
  })

  it('says the method node does not know, as sent, in http.request.method_original (FOO, not _OTHER)', async () => {
    // Served through answerEveryRequest, as apps/api serves: node's parser refuses the method, the app answers.
    const app = await serveApp(appOptions())
    open.push(app)
    const answer = await raw(
      app.port,
      `FOO /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 405 /)
    const [span] = spans()
    expect(span?.name).toBe('HTTP')
    expect(span?.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'FOO',
      'http.response.status_code': 405,
    })
  })

  it.each([
    ['AsyncLocalStorage', () => provider.register()],
    // What apps/api registers: the active context only for the synchronous part of `with`, no async hooks.
    ['a synchronous context manager', () => void context.setGlobalContextManager(new StackContextManager())],
  ])(
    'is active where the store is called (%s): after the awaits of authentication and of the body too',
    async (_, manager) => {
      context.disable()
      manager()
      try {
        const base = appOptions()
        const inside: Array<string | undefined> = []
        const store = trace.getTracer('a store')
        // A port as the contract has it: the parent is read when the task is made, the span runs with it.
        const statement = <A>(name: string, answer: A) => {
          const parent = context.active()
          inside.push(trace.getSpan(parent)?.spanContext().spanId)
          return () => {
            store.startSpan(name, {}, parent).end()
            return Promise.resolve(answer)
          }
        }
        const pets = {
          list: () => statement('SELECT pets', { _tag: 'Right', right: [] }),
          add: (pet: object) => statement('INSERT pets', { _tag: 'Right', right: { ...pet, id: 1 } }),
        } as unknown as PetRepository
        const { listPets, createPet } = await import('@pets/domain')
        const app = await start({
          useCases: { ...base.useCases, listPets: listPets({ pets }), createPet: createPet({ pets }) },
        })
        await app.fetch('/v1/pets', { headers: AUTH })
        await app.fetch('/v1/pets', {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: '{"name":"Rex","categoryId":1}',
        })
        const [select, listing, insert, creation] = spans()
        expect([select?.name, listing?.name, insert?.name, creation?.name]).toEqual([
          'SELECT pets',
          'GET /v1/pets',
          'INSERT pets',
          'POST /v1/pets',
        ])
        expect(select?.parentSpanContext?.spanId).toBe(listing?.spanContext().spanId)
        expect(insert?.parentSpanContext?.spanId).toBe(creation?.spanContext().spanId)
        expect(inside).toEqual([listing?.spanContext().spanId, creation?.spanContext().spanId])
      } finally {
        context.disable()
        provider.register()
      }
    },
  )

  it('says error.type and an error status for a 5xx, records the exception, and puts its ids in the error line', async () => {
    const failing: Authenticator = {
      authenticate: () => () => Promise.reject(new Error('a defect')),
    }
    const app = await start({ authenticator: failing })
    expect((await app.fetch('/v1/pets', { headers: AUTH })).status).toBe(500)
    const [span] = spans()
    expect(span?.attributes).toMatchObject({ 'error.type': '500', 'http.response.status_code': 500 })
    expect(span?.status.code).toBe(SpanStatusCode.ERROR)
    expect(span?.events.map((e) => e.name)).toEqual(['exception'])
    const { traceId, spanId } = span!.spanContext()
    const error = app.logger.lines.find((l) => l.level === 'error')
    expect(error?.fields).toMatchObject({ traceId, spanId })
    expect(error?.message).toBe('request failed')
  })

  it('says error.type `aborted`, and no status, for a client that went away before its answer', async () => {
    let gone = () => {}
    let arrive = () => {}
    const left = new Promise<void>((resolve) => (gone = resolve))
    const arrived = new Promise<void>((resolve) => (arrive = resolve))
    const onStart = (message: unknown) => {
      unsubscribe('http.server.request.start', onStart)
      ;(message as { response: ServerResponse }).response.once('close', gone)
    }
    subscribe('http.server.request.start', onStart)
    // The store answers once the client has gone, as a slow PostgreSQL would.
    const slow: Authenticator = {
      authenticate: () => async () => {
        arrive()
        await left
        return { _tag: 'Left', left: { _tag: 'Unauthorized' } } as never
      },
    }
    const app = await start({ authenticator: slow })
    const socket = connect(app.port, '127.0.0.1', () => {
      socket.write(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`)
      void arrived.then(() => socket.destroy())
    })
    socket.on('error', () => {})
    await expect.poll(() => spans().length, { timeout: 5_000 }).toBe(1)
    const [span] = spans()
    expect(span?.attributes['error.type']).toBe('aborted')
    expect(span?.attributes['http.response.status_code']).toBeUndefined()
    expect(span?.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('unsampled, exports nothing, runs in no context of its own, and its log line has no ids', async () => {
    let active: unknown = 'unset'
    const app = await start({
      tracer: unsampled.getTracer('test'),
      operations: {
        ready: () => async () => {
          active = trace.getActiveSpan()
          return { _tag: 'Right', right: undefined }
        },
      },
    })
    expect((await app.fetch('/readyz', { headers: { traceparent: TRACEPARENT } })).status).toBe(200)
    expect(spans()).toEqual([])
    expect(active).toBeUndefined()
    expect(app.logger.lines[0]?.fields['traceId']).toBeUndefined()
  })

  it('without an SDK, makes no span and logs no ids, whatever traceparent says', async () => {
    trace.disable()
    context.disable()
    propagation.disable()
    try {
      const app = await start()
      expect((await app.fetch('/v1/pets', { headers: { ...AUTH, traceparent: TRACEPARENT } })).status).toBe(
        200,
      )
      expect(app.logger.lines[0]?.fields['traceId']).toBeUndefined()
      expect(app.logger.lines[0]?.fields['spanId']).toBeUndefined()
    } finally {
      provider.register()
    }
    expect(spans()).toEqual([])
  })
})

describe("a span whose client's address is unknown", () => {
  it('leaves client.address out, rather than set it to an empty text (a socket closed before it was read)', () => {
    const span = provider.getTracer('test').startSpan('GET', { kind: SpanKind.SERVER })
    const req = { method: 'GET', url: '/v1/pets', headers: { host: 'pets.test' }, socket: null }
    endRequestSpan(span, { req, state: { clientAddress: '' }, status: 200 } as unknown as HttpContext, false)
    span.end()
    expect(spans()[0]?.attributes).toEqual({
      'http.response.status_code': 200,
      'url.scheme': 'http',
      'url.path': '/v1/pets',
      'server.address': 'pets.test',
      'server.port': 80,
    })
  })
})

describe('the pets router in a host Koa app', () => {
  it("names the host's server span after the route", async () => {
    const host = new Koa()
    const tracer = trace.getTracer('the host')
    host.use((_ctx, next) =>
      tracer.startActiveSpan('GET', { kind: SpanKind.SERVER }, async (span) => {
        await next()
        span.end()
      }),
    )
    host.use(createPetsRouter(appOptions()))
    const { createServer } = await import('node:http')
    const server = createServer(host.callback())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    open.push({ close: () => new Promise((resolve) => server.close(() => resolve())) })
    const { port } = server.address() as { port: number }
    await fetch(`http://127.0.0.1:${port}/v1/pets/3`, { headers: AUTH })
    const [span] = spans()
    expect(span?.name).toBe('GET /v1/pets/{petId}')
    expect(span?.attributes['http.route']).toBe('/v1/pets/{petId}')
  })
})
