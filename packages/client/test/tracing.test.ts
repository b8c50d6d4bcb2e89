import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { run } from '@pets/domain/testing'
import { StackContextManager } from '@opentelemetry/sdk-trace'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPetsClient } from '../src/index.js'
import { errorBody, startStubServer, type StubAnswer } from './support/stub-server.js'

const listed: StubAnswer = { status: 200, body: [] }
const unavailable: StubAnswer = {
  status: 503,
  headers: { 'Retry-After': '1' },
  body: errorBody(503, 'unavailable'),
}

const exported = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] })
beforeAll(() => provider.register())
afterAll(() => {
  trace.disable()
  context.disable()
  propagation.disable()
})

let stub: Awaited<ReturnType<typeof startStubServer>> | undefined
afterEach(async () => {
  await stub?.close()
  stub = undefined
  exported.reset()
})
const clientOf = async (answers: ReadonlyArray<StubAnswer>) => {
  stub = await startStubServer(answers)
  return {
    client: createPetsClient({ baseUrl: stub.baseUrl, apiKey: 'k', sleep: async () => {} }),
    seen: stub.seen,
  }
}
const caller = trace.getTracer('the caller')
// Runs `work` inside a span of the caller's, as an instrumented service calling the client would.
const inSpan = <A>(work: () => Promise<A>) =>
  caller.startActiveSpan('checkout', async (span) => {
    try {
      return { result: await work(), parent: span.spanContext() }
    } finally {
      span.end()
    }
  })

describe('traces of the client', () => {
  it("sends traceparent when its caller has an active span: each attempt's client span, the caller's child", async () => {
    const { client, seen } = await clientOf([listed])
    const { parent } = await inSpan(() => run(client.listPets({ limit: 5 })))
    const [attempt] = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
    expect(attempt?.name).toBe('GET')
    expect(attempt?.parentSpanContext?.spanId).toBe(parent.spanId)
    expect(attempt?.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(stub!.baseUrl).port),
      'url.full': `${stub!.baseUrl}/pets?limit=5`,
      'http.response.status_code': 200,
    })
    const { traceId, spanId } = attempt!.spanContext()
    expect(seen[0]?.headers['traceparent']).toBe(`00-${traceId}-${spanId}-01`)
  })

  it('makes a span of each retry, with http.request.resend_count, and error.type on the attempt that failed', async () => {
    const { client, seen } = await clientOf([unavailable, listed])
    await inSpan(() => run(client.listPets()))
    const [first, retry] = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
    expect(first?.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' })
    expect(first?.attributes['http.request.resend_count']).toBeUndefined()
    expect(first?.status.code).toBe(SpanStatusCode.ERROR)
    expect(retry?.attributes).toMatchObject({
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    })
    expect(seen.map((r) => r.headers['traceparent'])).toEqual([
      `00-${first!.spanContext().traceId}-${first!.spanContext().spanId}-01`,
      `00-${retry!.spanContext().traceId}-${retry!.spanContext().spanId}-01`,
    ])
  })

  it("parents a retry to the caller's span under a synchronous context manager too (the service's own)", async () => {
    context.disable()
    context.setGlobalContextManager(new StackContextManager())
    try {
      const { client, seen } = await clientOf([unavailable, listed])
      const checkout = caller.startSpan('checkout')
      // Active only while the call is made: the retry comes after awaits, where this manager holds nothing.
      const listing = context.with(trace.setSpan(context.active(), checkout), () => run(client.listPets()))
      await listing
      checkout.end()
      const attempts = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
      expect(attempts.map((s) => s.parentSpanContext?.spanId)).toEqual([
        checkout.spanContext().spanId,
        checkout.spanContext().spanId,
      ])
      expect(seen.map((r) => r.headers['traceparent'])).toEqual(
        attempts.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`),
      )
    } finally {
      context.disable()
      provider.register()
    }
  })

  it("parents every page of allPets to the caller's span under a synchronous context manager too", async () => {
    context.disable()
    context.setGlobalContextManager(new StackContextManager())
    try {
      const rex = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
      const tom = { ...rex, id: 2, name: 'Tom' }
      const { client } = await clientOf([
        { status: 200, headers: { Link: '</v1/pets?after=1>; rel="next"' }, body: [rex] },
        { status: 200, body: [tom] },
      ])
      const checkout = caller.startSpan('checkout')
      // Active only while allPets is called: the pages are asked for after awaits.
      const pets = context.with(trace.setSpan(context.active(), checkout), () => client.allPets())
      const names: Array<string> = []
      for await (const pet of pets) names.push(pet.name)
      checkout.end()
      expect(names).toEqual(['Rex', 'Tom'])
      const pages = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
      expect(pages.map((s) => s.parentSpanContext?.spanId)).toEqual([
        checkout.spanContext().spanId,
        checkout.spanContext().spanId,
      ])
    } finally {
      context.disable()
      provider.register()
    }
  })

  it('says what failed when no answer came', async () => {
    const { client } = await clientOf(['drop'])
    await inSpan(() => client.createPet({ name: 'Rex', categoryId: 1 })())
    const [attempt] = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
    expect(attempt?.name).toBe('POST')
    expect(attempt?.attributes['error.type']).toEqual(expect.any(String))
    expect(attempt?.attributes['http.response.status_code']).toBeUndefined()
    expect(attempt?.status.code).toBe(SpanStatusCode.ERROR)
  })

  // The HTTP span conventions (OpenTelemetry): error.type is predictable and of low cardinality, so a cancelled
  // attempt's is one value, not the name (or cause's code) of whatever the caller gave abort().
  it.each([
    ['no reason', undefined],
    ['an Error', new Error('shutting down')],
    ['a string', 'bye'],
    ['an error with a code', new Error('gone', { cause: { code: 'ECONNRESET' } })],
  ])('gives an attempt its caller aborted with %s the error.type AbortError', async (_, reason) => {
    const controller = new AbortController()
    const client = createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      // As the global fetch does: it rejects with the signal's reason.
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          const signal = init!.signal!
          signal.addEventListener('abort', () => reject(signal.reason))
          controller.abort(reason)
        }),
    })
    await inSpan(() => client.listPets({}, { signal: controller.signal })())
    const [attempt] = exported.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
    expect(attempt?.attributes['error.type']).toBe('AbortError')
    expect(attempt?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'aborted during attempt 1' })
  })

  it('sends no traceparent and makes no span when its caller has no active span', async () => {
    const { client, seen } = await clientOf([listed])
    await run(client.listPets())
    expect(seen[0]?.headers['traceparent']).toBeUndefined()
    expect(exported.getFinishedSpans()).toEqual([])
  })
})
