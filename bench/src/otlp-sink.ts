import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// Reads a protobuf varint at `at`: its value and where the next field starts.
const varint = (bytes: Uint8Array, at: number): [number, number] => {
  let value = 0
  let shift = 0
  for (;;) {
    const byte = bytes[at++]!
    value += (byte & 0x7f) * 2 ** shift
    if (byte < 0x80) return [value, at]
    shift += 7
  }
}

// Counts the length-delimited fields numbered `field` in bytes[from, to), and calls `inner` on each.
const eachField = (
  bytes: Uint8Array,
  from: number,
  to: number,
  field: number,
  inner: (start: number, end: number) => void,
): void => {
  let at = from
  while (at < to) {
    const [tag, next] = varint(bytes, at)
    const type = tag & 7
    at = next
    if (type === 0) at = varint(bytes, at)[1]
    else if (type === 1) at += 8
    else if (type === 5) at += 4
    else if (type === 2) {
      const [length, start] = varint(bytes, at)
      at = start + length
      if (tag >>> 3 === field) inner(start, at)
    } else throw new Error(`OTLP sink: wire type ${type} is not in a trace export`)
  }
}

/**
 * The spans of an OTLP/HTTP protobuf ExportTraceServiceRequest, counted without decoding them: field 1
 * (ResourceSpans), its field 2 (ScopeSpans), and the latter's field 2 (Span), skipped over by length.
 */
export const countSpans = (bytes: Uint8Array): number => {
  let spans = 0
  eachField(bytes, 0, bytes.length, 1, (rs, rsEnd) =>
    eachField(bytes, rs, rsEnd, 2, (ss, ssEnd) => eachField(bytes, ss, ssEnd, 2, () => spans++)),
  )
  return spans
}

/** An OTLP/HTTP receiver that keeps nothing: spans counted per path prefix (one per service). */
export type OtlpSink = {
  /** The endpoint for one service (OTEL_EXPORTER_OTLP_ENDPOINT): its spans are counted as `name`'s. */
  readonly endpointFor: (name: string) => string
  readonly spans: (name: string) => number
  readonly close: () => Promise<void>
}

/**
 * Starts a receiver on a free loopback port that answers every protobuf export at once (200, an empty
 * response) and counts its spans, so that a run can check that the traced services exported a span
 * for each request; its own CPU is the collector's, not the service's (it shares the cores, as the
 * load generator does).
 */
export const startOtlpSink = async (): Promise<OtlpSink> => {
  const counts = new Map<string, number>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const name = (req.url ?? '').split('/')[1] ?? ''
      counts.set(name, (counts.get(name) ?? 0) + countSpans(Buffer.concat(chunks)))
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    endpointFor: (name) => `http://127.0.0.1:${port}/${name}`,
    spans: (name) => counts.get(name) ?? 0,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
