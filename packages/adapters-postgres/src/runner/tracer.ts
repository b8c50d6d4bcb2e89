import { trace, type Tracer } from '@opentelemetry/api'

/** This package's tracer, the global provider's: a no-op until the host registers an SDK (apps/api does when OTEL_* asks). */
export const tracer = (): Tracer => trace.getTracer('@pets/adapters-postgres')
