// The request path's OpenTelemetry calls without an SDK, in a process of its own (none is ever
// registered here): node dist/tracing-noop.js COUNT. Prints the nanoseconds of CPU per request on
// stdout, the best of five runs: what tracing off costs each request (@opentelemetry/api's no-op).
import { defaultTracer, endRequestSpan, startRequestSpan, traceIdsOf } from '@pets/adapters-http'
import type { IncomingMessage } from 'node:http'

type Context = Parameters<typeof endRequestSpan>[1]

// What serveRequests hands the calls for `GET /v1/pets?limit=20`, with a traceparent the no-op ignores.
const req = {
  method: 'GET',
  url: '/v1/pets?limit=20',
  httpVersion: '1.1',
  headers: {
    host: '127.0.0.1:3000',
    authorization: 'Bearer a-key',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  },
  socket: {},
} as unknown as IncomingMessage
const ctx = {
  req,
  status: 200,
  state: { route: '/v1/pets', clientAddress: '127.0.0.1' },
} as unknown as Context

const count = Number(process.argv[2] ?? 1_000_000)
const tracer = defaultTracer()
let traced = 0
const once = (): number => {
  const before = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    const { span } = startRequestSpan(tracer, req)
    if (traceIdsOf(span) !== undefined) traced++
    endRequestSpan(span, ctx, false)
  }
  const cpu = process.cpuUsage(before)
  return ((cpu.user + cpu.system) * 1000) / count
}
const best = Math.min(...Array.from({ length: 5 }, once))
if (traced !== 0) throw new Error('a no-op span gave ids to log')
process.stdout.write(`${best}\n`)
