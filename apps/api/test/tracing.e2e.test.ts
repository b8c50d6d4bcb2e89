import { context, propagation, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest'
import { startOtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js'
import { usePgBouncer } from './support/pgbouncer.js'
import { startTestService, type ChildService } from './support/test-service.js'

const KEY = 'tracing-e2e-key-4c1f7a'
const AUTH = { Authorization: `Bearer ${KEY}` }
const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_SPAN = '00f067aa0ba902b7'

type Line = {
  msg: string
  level: number
  requestId?: string
  traceId?: string
  spanId?: string
  spansLost?: number
  detail?: string
}
const linesOf = (svc: ChildService): Array<Line> =>
  svc
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line)

const open: Array<{ close: () => Promise<unknown> }> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()))
})
const receiver = async () => {
  const started = await startOtlpReceiver()
  open.push(started)
  return started
}
const service = async (env: Record<string, string>) => {
  const svc = await startTestService({ mode: 'child', env: { API_KEYS: KEY, ...env } })
  open.push(svc)
  return svc
}
const byName = (spans: ReadonlyArray<ReceivedSpan>, name: string) => spans.filter((s) => s.name === name)

describe('traces of the built service, exported to a real OTLP/HTTP receiver', () => {
  it('http/protobuf: one server span per request, its parent the traceparent, its ids in the request line', async () => {
    const otlp = await receiver()
    const svc = await service({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SERVICE_NAME: 'pets-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=pets%20and%20more',
    })
    const traced = { ...AUTH, traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`, 'X-Request-Id': 'traced' }
    expect((await fetch(`${svc.url}/v1/pets?limit=2`, { headers: traced })).status).toBe(200)
    const created = await fetch(`${svc.url}/v1/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json', 'X-Request-Id': 'created' },
      body: '{"name":"Rex","categoryId":1}',
    })
    expect(created.status).toBe(201)
    const invalid = { ...AUTH, traceparent: '00-not-a-trace-01', 'X-Request-Id': 'invalid' }
    expect((await fetch(`${svc.url}/v1/pets/1`, { headers: invalid })).status).toBe(200)
    expect((await fetch(`${svc.url}/wp-login.php`, { headers: { 'X-Request-Id': 'scan' } })).status).toBe(404)
    // Shutting down sends what is queued: nothing is lost.
    expect(await svc.stop()).toBe(0)
    expect(linesOf(svc).filter((l) => l.msg.startsWith('tracing:'))).toEqual([])

    const spans = await otlp.waitFor((s) => s.length >= 4)
    expect(spans.map((s) => s.name).sort()).toEqual([
      'GET',
      'GET /v1/pets',
      'GET /v1/pets/{petId}',
      'POST /v1/pets',
    ])
    expect(otlp.contentTypes().every((type) => type === 'application/x-protobuf')).toBe(true)
    const [list] = byName(spans, 'GET /v1/pets')
    expect(list).toMatchObject({ traceId: PARENT_TRACE, parentSpanId: PARENT_SPAN, kind: 'server' })
    expect(list?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/pets',
      'http.response.status_code': 200,
      'url.scheme': 'http',
      'url.path': '/v1/pets',
      'url.query': 'limit=2',
      'server.address': '127.0.0.1',
      'client.address': '127.0.0.1',
    })
    expect(list?.scope.name).toBe('@pets/adapters-http')
    expect(list?.resource).toMatchObject({
      'service.name': 'pets-under-test',
      'deployment.environment.name': 'test',
      team: 'pets and more',
      'process.pid': svc.child.pid,
      'telemetry.sdk.language': 'nodejs',
    })
    expect(list?.resource['service.instance.id']).toMatch(/^[0-9a-f-]{36}$/)
    const [get] = byName(spans, 'GET /v1/pets/{petId}')
    expect(get?.parentSpanId).toBeUndefined()
    expect(get?.traceId).not.toBe(PARENT_TRACE)
    expect(byName(spans, 'GET')[0]?.attributes['http.route']).toBeUndefined()
    // Each request line names its span, and so finds its trace.
    const lines = linesOf(svc).filter((l) => l.msg === 'request')
    for (const [requestId, name] of [
      ['traced', 'GET /v1/pets'],
      ['created', 'POST /v1/pets'],
      ['invalid', 'GET /v1/pets/{petId}'],
      ['scan', 'GET'],
    ] as const) {
      const [span] = byName(spans, name)
      expect(lines.find((l) => l.requestId === requestId)).toMatchObject({
        traceId: span?.traceId,
        spanId: span?.spanId,
      })
    }
  })

  it("says which of the SDK's own variables it could not take (OTEL_EXPORTER_OTLP_COMPRESSION=zstd), and still exports", async () => {
    const otlp = await receiver()
    const svc = await service({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd',
    })
    expect((await fetch(`${svc.url}/v1/pets`, { headers: AUTH })).status).toBe(200)
    expect(await svc.stop()).toBe(0)
    await otlp.waitFor((s) => s.length >= 1)
    const said = linesOf(svc).filter((l) => l.level === 40 && l.msg.startsWith('tracing:'))
    expect(said).toEqual([
      expect.objectContaining({ detail: expect.stringContaining('OTEL_EXPORTER_OTLP_COMPRESSION') }),
    ])
  })

  it("samples as OTEL_TRACES_SAMPLER says, in any case: a root at ratio 0 is not traced (no ids logged), a keyed caller's sampled parent is, a stranger's is not", async () => {
    const otlp = await receiver()
    const svc = await service({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    })
    await fetch(`${svc.url}/v1/pets`, { headers: { ...AUTH, 'X-Request-Id': 'root' } })
    const parent = { ...AUTH, traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`, 'X-Request-Id': 'child' }
    await fetch(`${svc.url}/v1/pets`, { headers: parent })
    // A stranger's sampled traceparent (no key, or one that is not valid) is no parent: ratio 0 traces none.
    const { Authorization: _, ...keyless } = parent
    await fetch(`${svc.url}/v1/pets`, { headers: { ...keyless, 'X-Request-Id': 'stranger' } })
    const wrongKey = { ...keyless, Authorization: 'Bearer not-a-key', 'X-Request-Id': 'wrong-key' }
    await fetch(`${svc.url}/v1/pets`, { headers: wrongKey })
    await fetch(`${svc.url}/healthz`, { headers: { ...keyless, 'X-Request-Id': 'probe' } })
    expect(await svc.stop()).toBe(0)
    const spans = await otlp.waitFor((s) => s.length >= 1)
    expect(spans.map((s) => [s.traceId, s.encoding])).toEqual([[PARENT_TRACE, 'json']])
    const lines = linesOf(svc).filter((l) => l.msg === 'request')
    expect(lines.find((l) => l.requestId === 'root')?.traceId).toBeUndefined()
    expect(lines.find((l) => l.requestId === 'child')?.traceId).toBe(PARENT_TRACE)
    for (const requestId of ['stranger', 'wrong-key', 'probe']) {
      const line = lines.find((l) => l.requestId === requestId)
      expect(line?.msg).toBe('request')
      expect(line?.traceId).toBeUndefined()
    }
    // The SDK, which reads the variable too and knows lower case only, said at start that the value was
    // invalid and defaulted to parentbased_always_on: not so.
    expect(linesOf(svc).filter((l) => l.level === 40 && l.msg.startsWith('tracing:'))).toEqual([])
  })
})

describe('one trace across two instances on one PostgreSQL', () => {
  const databases: Array<FreshDatabase> = []
  afterAll(async () => {
    await Promise.all(databases.map((db) => db.close()))
  })
  const pgbouncer = usePgBouncer({ poolSize: 10 })

  it.each(['directly', 'through PgBouncer in transaction mode'])(
    "parents the server spans of both to the caller's client span, protobuf and JSON alike, and the statements to them (%s)",
    async (how) => {
      const otlp = await receiver()
      const database = await openFreshDatabase(inject('postgres'))
      databases.push(database)
      const env = {
        ...(how === 'directly'
          ? { DATABASE_URL: database.url }
          : { DATABASE_URL: (await pgbouncer()).through(database.url), DATABASE_DIRECT_URL: database.url }),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      }
      const a = await service({ ...env, OTEL_SERVICE_NAME: 'instance-a' })
      const b = await service({
        ...env,
        OTEL_SERVICE_NAME: 'instance-b',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      })
      // The test is the caller: an SDK of its own, whose client span is sent as traceparent to both.
      const exported = new InMemorySpanExporter()
      const caller = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] })
      caller.register()
      try {
        await trace.getTracer('the caller').startActiveSpan('checkout', async (span) => {
          const headers: Record<string, string> = { ...AUTH, 'Content-Type': 'application/json' }
          propagation.inject(context.active(), headers)
          const body = '{"name":"Rex","categoryId":1}'
          expect((await fetch(`${a.url}/v1/pets`, { method: 'POST', headers, body })).status).toBe(201)
          expect((await fetch(`${b.url}/v1/pets?limit=5`, { headers })).status).toBe(200)
          span.end()
        })
      } finally {
        trace.disable()
        context.disable()
        propagation.disable()
      }
      await Promise.all([a.stop(), b.stop()])
      const [checkout] = exported.getFinishedSpans()
      const { traceId, spanId } = checkout!.spanContext()
      const spans = await otlp.waitFor((s) => s.length >= 2)
      const servers = spans.filter((s) => s.kind === 'server')
      expect(servers.map((s) => [s.resource['service.name'], s.name, s.encoding]).sort()).toEqual([
        ['instance-a', 'POST /v1/pets', 'protobuf'],
        ['instance-b', 'GET /v1/pets', 'json'],
      ])
      for (const server of servers) expect(server).toMatchObject({ traceId, parentSpanId: spanId })
      expect(servers[0]?.resource['service.instance.id']).not.toBe(
        servers[1]?.resource['service.instance.id'],
      )
      // Each request's statements are its children, named by their summary, with no parameter value.
      const statements = (name: string) =>
        otlp.childrenOf(servers.find((s) => s.name === name)!).filter((s) => s.kind === 'client')
      expect(statements('POST /v1/pets').map((s) => s.name)).toContain('INSERT pets')
      expect(statements('GET /v1/pets').map((s) => s.name)).toContain('SELECT pets')
      for (const statement of [...statements('POST /v1/pets'), ...statements('GET /v1/pets')]) {
        expect(statement.attributes).toMatchObject({ 'db.system.name': 'postgresql' })
        expect(JSON.stringify(statement.attributes)).not.toContain('Rex')
      }
    },
  )
})

// A port where nothing listens: every export is refused at once.
const refusedPort = async () => {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

describe('an exporter that cannot reach its receiver', () => {
  it.each([
    ['refused', async () => `http://127.0.0.1:${await refusedPort()}`],
    [
      'silent (it reads, and never answers)',
      async () => {
        const silent = createServer((socket) => socket.resume()).listen(0, '127.0.0.1')
        await once(silent, 'listening')
        open.push({ close: () => new Promise((resolve) => silent.close(resolve)) })
        return `http://127.0.0.1:${(silent.address() as { port: number }).port}`
      },
    ],
  ])('%s: loses spans from its bounded queue, never a request', async (_, endpoint) => {
    const svc = await service({
      OTEL_EXPORTER_OTLP_ENDPOINT: await endpoint(),
      OTEL_BSP_MAX_QUEUE_SIZE: '64',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '16',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    })
    const statuses: Array<number> = []
    for (let round = 0; round < 40; round++)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, () =>
            fetch(`${svc.url}/v1/pets`, { headers: AUTH }).then((r) => r.status),
          ),
        )),
      )
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    expect(statuses).toHaveLength(1000)
    // The queue held 64 spans at most: the rest were dropped, and said so (a minute apart at most).
    await expect
      .poll(() => linesOf(svc).some((l) => l.level === 40 && l.msg === 'tracing: spans may be lost'), {
        timeout: 10_000,
      })
      .toBe(true)
    // /metrics counts them: every request's span ended, none was exported.
    const page = await (await fetch(`${svc.url}/metrics`)).text()
    expect(page).toContain('tracing_spans_total{outcome="ended"} 1000')
    expect(page).toContain('tracing_spans_total{outcome="exported"} 0')
    const startedMs = Date.now()
    expect(await svc.stop()).toBe(0)
    // Queued spans get TRACES_FLUSH_MS (3 s) at exit, and no longer.
    expect(Date.now() - startedMs).toBeLessThan(8_000)
    // The requests' lines, and that of /metrics.
    expect(linesOf(svc).filter((l) => l.msg === 'request')).toHaveLength(1001)
    // The shutdown says how many: every request's span ended (and that of /metrics), none was exported.
    const lost = linesOf(svc).filter((l) => l.msg === 'tracing: spans lost')
    expect(lost).toEqual([
      expect.objectContaining({ level: 40, spansEnded: 1001, spansExported: 0, spansLost: 1001 }),
    ])
  })
})
