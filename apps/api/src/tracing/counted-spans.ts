import { TraceFlags, type Context } from '@opentelemetry/api'
import { ExportResultCode } from '@opentelemetry/core'
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-node'

/** How many sampled spans ended in this process, and how many of them an export took or failed. */
export type SpanCounts = { readonly ended: number; readonly exported: number; readonly failed: number }

/**
 * Puts counters around a span processor and its exporter, through their public interfaces only: the spans
 * that ended sampled, and those of each export by its result. What ended and was neither exported nor failed
 * is queued, or was dropped by a full queue (which the SDK reports only now and then): at shutdown, once the
 * queue is flushed, `ended - exported` is what was lost. An addition per span.
 */
export const countSpans = (
  processorOf: (exporter: SpanExporter) => SpanProcessor,
  exporter: SpanExporter,
): { readonly processor: SpanProcessor; readonly counts: () => SpanCounts } => {
  let ended = 0
  let exported = 0
  let failed = 0
  const counted: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) exported += spans.length
        else failed += spans.length
        done(result)
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  }
  const inner = processorOf(counted)
  const processor: SpanProcessor = {
    onStart: (span: Span, parent: Context) => inner.onStart(span, parent),
    onEnd: (span: ReadableSpan) => {
      // As the batch processor itself: only sampled spans are exported.
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) ended++
      inner.onEnd(span)
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  }
  return { processor, counts: () => ({ ended, exported, failed }) }
}
