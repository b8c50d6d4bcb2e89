import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import { StackContextManager } from '@opentelemetry/sdk-trace'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node'
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { TracingConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import { countSpans, type SpanCounts } from './counted-spans.js'
import { reportDiagnostics } from './report-diagnostics.js'
import { within } from '../within.js'

/**
 * The OpenTelemetry SDK of this process, registered: `shutdown` sends what is queued, then stops, and says at
 * `warn` how many spans were lost if any were; `counts` are the spans so far (ended, exported, failed).
 */
export type Tracing = { readonly shutdown: () => Promise<void>; readonly counts: () => SpanCounts }

/** The longest `shutdown` waits for the queued spans to be sent: past it they are lost, not the exit. */
export const TRACES_FLUSH_MS = 3_000

const samplerOf = ({ sampler, samplerArg = 1 }: TracingConfig): Sampler => {
  const root = sampler.endsWith('always_on')
    ? new AlwaysOnSampler()
    : sampler.endsWith('always_off')
      ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(samplerArg)
  return sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root
}

// The provider reads OTEL_TRACES_SAMPLER itself when it is made, though it is given the sampler, and knows
// its values in lower case only: a value the service read in another case (ParentBased_TraceIdRatio) had it
// say at warn, at start, that the value was invalid and parentbased_always_on taken, which was not so. While
// the provider is made, the variable holds the value the service read, as the SDK writes it.
const readingSamplerAs = <A>(sampler: string, make: () => A): A => {
  const given = process.env.OTEL_TRACES_SAMPLER
  if (given === undefined) return make()
  process.env.OTEL_TRACES_SAMPLER = sampler
  try {
    return make()
  } finally {
    process.env.OTEL_TRACES_SAMPLER = given
  }
}

/**
 * Registers the SDK for this process (loaded only when OTEL_* asks for tracing): the spans of the
 * @opentelemetry/api calls of every package go to one OTLP/HTTP exporter through a BatchSpanProcessor,
 * whose queue is bounded (OTEL_BSP_MAX_QUEUE_SIZE, 2048): a receiver that cannot be reached loses spans,
 * never requests. Each process (each worker of WEB_CONCURRENCY) is a resource of its own.
 */
export const startTracing = (config: TracingConfig, logger: Logger): Tracing => {
  // First: the exporter and the span processor read the SDK's own variables when they are made, and say
  // there (through diag) which value they could not take and dropped (OTEL_EXPORTER_OTLP_COMPRESSION=zstd).
  const diagnostics = reportDiagnostics(logger)
  const exporter =
    config.protocol === 'http/json'
      ? new JsonExporter({ url: config.url })
      : new ProtobufExporter({ url: config.url })
  const resource = defaultResource().merge(
    resourceFromAttributes({
      'service.instance.id': randomUUID(),
      'host.name': hostname(),
      'process.pid': process.pid,
      ...config.resourceAttributes,
      [ATTR_SERVICE_NAME]: config.serviceName,
    }),
  )
  const { processor, counts } = countSpans((counted) => new BatchSpanProcessor(counted), exporter)
  const provider = readingSamplerAs(
    config.sampler,
    () => new NodeTracerProvider({ resource, sampler: samplerOf(config), spanProcessors: [processor] }),
  )
  // traceparent alone is read and written (no baggage). The context is kept for the synchronous part of
  // context.with only (the SDK's StackContextManager), not by AsyncLocalStorage, whose hooks cost every async
  // resource of every request on Node 20 once one is traced (list 20 in memory at a 10 % sampler: 82 against
  // 70 µs of CPU; commit e6a1db8): every port reads the context when it is called (ARCHITECTURE.md, "What a
  // traced request costs").
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new StackContextManager(),
  })
  // What the queue still held when the flush ran out of time is lost too: ended, never exported.
  const sayLost = () => {
    const { ended, exported, failed } = counts()
    if (ended > exported)
      logger.warn(
        { spansEnded: ended, spansExported: exported, spansFailed: failed, spansLost: ended - exported },
        'tracing: spans lost',
      )
    diagnostics.quiet()
  }
  return {
    counts,
    shutdown: async () => {
      await within(
        provider.shutdown().catch(() => {}),
        TRACES_FLUSH_MS,
      )
      sayLost()
    },
  }
}
