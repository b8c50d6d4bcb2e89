import { SpanStatusCode } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { connectionCutter, createHttpApp, type HttpAppOptions, type ObservedRequest } from '../src/index.js'
import { appOptions, KEY, recordingLogger } from './serve.js'

// createHttpApp on a server whose connections a cut can end, as a host's shutdown does.
const serveCuttable = async (overrides: Partial<HttpAppOptions> = {}) => {
  const logger = recordingLogger()
  const observed: Array<ObservedRequest> = []
  const observe = (r: ObservedRequest) => void observed.push(r)
  const app = createHttpApp(appOptions({ logger, operations: { observe }, ...overrides }))
  // In front of the app: the requests it was given, and those it is done with.
  const arrived: Array<string> = []
  const ended: Array<string> = []
  app.middleware.unshift(async (ctx, next) => {
    arrived.push(ctx.get('X-Request-Id'))
    await next()
    ended.push(ctx.get('X-Request-Id'))
  })
  const server = createServer(app.callback())
  const cut = connectionCutter(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const open = (): Promise<Socket> =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket))
      socket.on('error', () => {})
    })
  return { server, cut, open, logger, observed, arrived, ended }
}

// A creation whose body never comes whole: in flight until its connection is closed.
const SLOW_CREATION =
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
  'Content-Length: 100\r\nX-Request-Id: slow-body\r\n\r\n{"name":'

describe('cutting the connections of a server at shutdown', () => {
  const servers: Array<Server> = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  })
  const start = async (overrides: Partial<HttpAppOptions> = {}) => {
    const served = await serveCuttable(overrides)
    servers.push(served.server)
    return served
  }

  it('logs each request still without its answer as cut, once, and counts only those', async () => {
    const { cut, open, logger, observed, arrived, ended } = await start()
    const idle = await open()
    let answered = ''
    idle.on('data', (chunk: Buffer) => (answered += chunk.toString()))
    idle.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: health\r\n\r\n')
    await expect.poll(() => answered).toContain('{"status":"ok"}')
    const slow = await open()
    const closed = new Promise((resolve) => slow.on('close', resolve))
    slow.write(SLOW_CREATION)
    // Authenticated before its body is read: its key is known when it is cut.
    await expect.poll(() => arrived).toEqual(['health', 'slow-body'])

    expect(cut()).toBe(1)
    await closed
    const line = {
      requestId: 'slow-body',
      method: 'POST',
      route: '/v1/pets',
      operation: 'createPet',
      status: 499,
      apiKeyId: 'test-1',
      aborted: true,
      outcome: 'cut',
    }
    expect(logger.lines[1]?.fields).toMatchObject(line)
    expect(observed[1]).toMatchObject(line)
    // Its handler ends once the connection is gone: no second line, nothing counted twice.
    await expect.poll(() => ended).toEqual(['health', 'slow-body'])
    expect(logger.lines.map((l) => [l.message, l.fields['requestId']])).toEqual([
      ['request', 'health'],
      ['request', 'slow-body'],
    ])
    expect(observed).toHaveLength(2)
    expect(observed[0]?.outcome).toBeUndefined()
  })

  it("ends a sampled request's span when it cuts it, its ids in the line, and only then", async () => {
    const exported = new InMemorySpanExporter()
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] })
    const { cut, open, logger, arrived, ended } = await start({ tracer: provider.getTracer('test') })
    const slow = await open()
    slow.write(SLOW_CREATION)
    await expect.poll(() => arrived).toEqual(['slow-body'])
    expect(cut()).toBe(1)
    const [span] = exported.getFinishedSpans()
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'the shutdown cut it before its answer',
    })
    expect(span?.attributes).toMatchObject({ 'error.type': 'aborted', 'http.route': '/v1/pets' })
    expect(logger.lines[0]?.fields).toMatchObject({
      outcome: 'cut',
      traceId: span?.spanContext().traceId,
      spanId: span?.spanContext().spanId,
    })
    await expect.poll(() => ended).toEqual(['slow-body'])
    expect(exported.getFinishedSpans()).toHaveLength(1)
  })

  it('counts nothing for idle connections, and closes them', async () => {
    const { cut, open } = await start()
    const idle = await open()
    const closed = new Promise((resolve) => idle.on('close', resolve))
    expect(cut()).toBe(0)
    await closed
  })
})
