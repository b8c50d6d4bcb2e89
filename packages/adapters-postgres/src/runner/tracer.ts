import { context, trace, type Context, type Tracer } from '@opentelemetry/api'

/** This package's tracer, the global provider's: a no-op until the host registers an SDK (apps/api does when OTEL_* asks). */
export const tracer = (): Tracer => trace.getTracer('@pets/adapters-postgres')

/** Whether `parent` (the active context unless given) has a span that records: else no span is made. */
export const recording = (parent: Context = context.active()): boolean =>
  trace.getSpan(parent)?.isRecording() === true
