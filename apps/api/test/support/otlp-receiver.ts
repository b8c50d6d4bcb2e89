import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import protobuf from 'protobufjs'
import { expect } from 'vitest'

// The messages of OTLP's trace export (opentelemetry-proto v1: common, resource, trace, trace_service),
// as their .proto files number them: the receiver decodes with protobufjs, nothing of the exporter's own.
const OTLP_TRACES = `
syntax = "proto3";
package otlp;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3;
  double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; repeated Link links = 13; Status status = 15;
  fixed32 flags = 16; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`
const ExportTraceServiceRequest = protobuf
  .parse(OTLP_TRACES, { keepCase: false })
  .root.lookupType('otlp.ExportTraceServiceRequest')

/** An attribute's value as OTLP carries it, made plain. */
export type AttributeValue = string | number | boolean | ReadonlyArray<AttributeValue> | null

/** One span as the receiver got it, whichever encoding it came in. */
export type ReceivedSpan = {
  readonly traceId: string
  readonly spanId: string
  /** Undefined for a root span. */
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer'
  readonly startNs: bigint
  readonly endNs: bigint
  readonly attributes: Readonly<Record<string, AttributeValue>>
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message: string }
  readonly events: ReadonlyArray<{
    readonly name: string
    readonly attributes: Readonly<Record<string, AttributeValue>>
  }>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  readonly resource: Readonly<Record<string, AttributeValue>>
  readonly scope: { readonly name: string; readonly version: string }
  readonly encoding: 'protobuf' | 'json'
}

// The shapes both encodings share once protobufjs has named the fields in camelCase, as OTLP/JSON does:
// only ids (bytes, or hex text in JSON) and 64-bit numbers (Long, or decimal text) differ.
type Wire = Record<string, unknown>
const list = (value: unknown): Array<Wire> => (Array.isArray(value) ? (value as Array<Wire>) : [])
const hexOf = (id: unknown): string =>
  typeof id === 'string' ? id.toLowerCase() : id instanceof Uint8Array ? Buffer.from(id).toString('hex') : ''
const bigOf = (n: unknown): bigint =>
  BigInt(typeof n === 'object' && n !== null ? String(n) : ((n as number) ?? 0))
const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const
const CODES = ['unset', 'ok', 'error'] as const

const valueOf = (any: Wire | undefined): AttributeValue => {
  if (any === undefined || any === null) return null
  if ('stringValue' in any) return any['stringValue'] as string
  if ('boolValue' in any) return any['boolValue'] as boolean
  if ('intValue' in any) return Number(String(any['intValue']))
  if ('doubleValue' in any) return Number(any['doubleValue'])
  if ('arrayValue' in any) return list((any['arrayValue'] as Wire)['values']).map(valueOf)
  return null
}
const attributesOf = (values: unknown): Record<string, AttributeValue> =>
  Object.fromEntries(list(values).map((kv) => [kv['key'] as string, valueOf(kv['value'] as Wire)]))

const spansOf = (request: Wire, encoding: ReceivedSpan['encoding']): Array<ReceivedSpan> =>
  list(request['resourceSpans']).flatMap((rs) =>
    list(rs['scopeSpans']).flatMap((ss) =>
      list(ss['spans']).map((s): ReceivedSpan => {
        const parent = hexOf(s['parentSpanId'])
        const scope = (ss['scope'] ?? {}) as Wire
        const status = (s['status'] ?? {}) as Wire
        return {
          traceId: hexOf(s['traceId']),
          spanId: hexOf(s['spanId']),
          parentSpanId: parent === '' ? undefined : parent,
          name: s['name'] as string,
          kind: KINDS[Number(s['kind'] ?? 0)] ?? 'unspecified',
          startNs: bigOf(s['startTimeUnixNano']),
          endNs: bigOf(s['endTimeUnixNano']),
          attributes: attributesOf(s['attributes']),
          status: {
            code: CODES[Number(status['code'] ?? 0)] ?? 'unset',
            message: (status['message'] as string) ?? '',
          },
          events: list(s['events']).map((e) => ({
            name: e['name'] as string,
            attributes: attributesOf(e['attributes']),
          })),
          links: list(s['links']).map((l) => ({ traceId: hexOf(l['traceId']), spanId: hexOf(l['spanId']) })),
          resource: attributesOf(((rs['resource'] ?? {}) as Wire)['attributes']),
          scope: { name: (scope['name'] as string) ?? '', version: (scope['version'] as string) ?? '' },
          encoding,
        }
      }),
    ),
  )

const bodyOf = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** What an OTLP/HTTP receiver of this process got, and the ways to wait for it. */
export type OtlpReceiver = {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: spans arrive at `/v1/traces` under it. */
  readonly endpoint: string
  /** Every span received so far, in the order they came. */
  readonly spans: () => ReadonlyArray<ReceivedSpan>
  /** The content type of each export request, in order. */
  readonly contentTypes: () => ReadonlyArray<string>
  /** Resolves with the spans once `found` holds of them (polled), or fails after `timeoutMs`. */
  readonly waitFor: (
    found: (spans: ReadonlyArray<ReceivedSpan>) => boolean,
    timeoutMs?: number,
  ) => Promise<ReadonlyArray<ReceivedSpan>>
  /** The spans whose parent is `span`: a server span's statements, once the store makes spans. */
  readonly childrenOf: (span: ReceivedSpan) => ReadonlyArray<ReceivedSpan>
  readonly close: () => Promise<void>
}

/**
 * A real OTLP/HTTP trace receiver on a free loopback port: it decodes `application/x-protobuf` (with
 * protobufjs and the OTLP messages above) and `application/json`, keeps the spans, and answers as a
 * collector does (200 and an empty ExportTraceServiceResponse); anything else is 415 or 404.
 */
export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const received: Array<ReceivedSpan> = []
  const types: Array<string> = []
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim()
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end()
      if (type === 'application/x-protobuf') {
        const message = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
          longs: String,
        })
        received.push(...spansOf(message, 'protobuf'))
        types.push(type)
        return void res.writeHead(200, { 'Content-Type': type }).end()
      }
      if (type === 'application/json') {
        received.push(...spansOf(JSON.parse(body.toString('utf8')) as Wire, 'json'))
        types.push(type)
        return void res.writeHead(200, { 'Content-Type': type }).end('{}')
      }
      res.writeHead(415).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const spans = () => [...received]
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes: () => [...types],
    waitFor: async (found, timeoutMs = 15_000) => {
      await expect.poll(() => found(spans()), { timeout: timeoutMs, interval: 50 }).toBe(true)
      return spans()
    },
    childrenOf: (span) =>
      received.filter((s) => s.traceId === span.traceId && s.parentSpanId === span.spanId),
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
