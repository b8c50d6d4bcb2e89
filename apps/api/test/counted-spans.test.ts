import { ExportResultCode } from '@opentelemetry/core'
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node'
import { describe, expect, it } from 'vitest'
import { countSpans } from '../src/tracing/counted-spans.js'

const provide = (exporter: SpanExporter, sampled = true) => {
  const { processor, counts } = countSpans((counted) => new SimpleSpanProcessor(counted), exporter)
  const provider = new NodeTracerProvider({
    spanProcessors: [processor],
    ...(sampled ? {} : { sampler: new AlwaysOffSampler() }),
  })
  const tracer = provider.getTracer('test')
  return {
    provider,
    counts,
    end: (n: number) => {
      for (let i = 0; i < n; i++) tracer.startSpan(`s${i}`).end()
    },
  }
}

describe('countSpans', () => {
  it('counts the sampled spans that ended and those an export took', async () => {
    const memory = new InMemorySpanExporter()
    const { provider, counts, end } = provide(memory)
    end(5)
    await provider.forceFlush()
    expect(counts()).toEqual({ ended: 5, exported: 5, failed: 0 })
    expect(memory.getFinishedSpans()).toHaveLength(5)
  })

  it('counts the spans of a failed export as failed, never as exported', async () => {
    const failing: SpanExporter = {
      export: (_spans, done) => done({ code: ExportResultCode.FAILED, error: new Error('unreachable') }),
      shutdown: async () => {},
    }
    const { provider, counts, end } = provide(failing)
    end(3)
    // The processor's flush fails with the export: what is counted is the point here.
    await provider.forceFlush().catch(() => {})
    expect(counts()).toEqual({ ended: 3, exported: 0, failed: 3 })
  })

  it('does not count spans that were not sampled: they are never exported', async () => {
    const { provider, counts, end } = provide(new InMemorySpanExporter(), false)
    end(4)
    await provider.forceFlush()
    expect(counts()).toEqual({ ended: 0, exported: 0, failed: 0 })
  })
})
