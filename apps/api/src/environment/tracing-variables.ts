import { TRACES_SAMPLERS, type TracingConfig } from './app-config.js'
import { integer, oneOf } from './codecs.js'
import { flag, named, ratio, resourceAttributes } from './tracing-codecs.js'
import { httpUrl } from './url-codecs.js'
import { optional, variable, type Get } from './variable.js'

// The OpenTelemetry variables the service reads itself, named and meant as the specification has them
// (its "Environment Variable Specification"); the SDK reads its others (OTEL_EXPORTER_OTLP_HEADERS, …), and the
// numbers of its batching and export, which are only checked here.

export const OTEL_SDK_DISABLED = variable({
  name: 'OTEL_SDK_DISABLED',
  codec: flag,
  default: { value: false },
  meaning: '`true`: no tracing, whatever the other `OTEL_*` variables say (see "Tracing")',
})

export const OTEL_EXPORTER_OTLP_ENDPOINT = optional({
  name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  codec: httpUrl,
  unset: 'unset: no tracing',
  meaning:
    'Turns tracing on: the OTLP/HTTP receiver (an OpenTelemetry Collector, Jaeger, …) spans are sent ' +
    'to, at `/v1/traces` under it, such as `http://127.0.0.1:4318`. Unset, no OpenTelemetry SDK is loaded',
})

export const OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = optional({
  name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  codec: httpUrl,
  unset: '`OTEL_EXPORTER_OTLP_ENDPOINT` and `/v1/traces`',
  meaning: 'The whole URL spans are sent to, taken as it is; it turns tracing on too',
})

export const OTEL_EXPORTER_OTLP_PROTOCOL = variable({
  name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  codec: oneOf(['http/protobuf', 'http/json'] as const, { anyCase: true }),
  default: { value: 'http/protobuf' },
  meaning: 'How spans are sent: `http/protobuf` or `http/json` (OTLP over HTTP; gRPC is not offered)',
})

export const OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = optional({
  name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  codec: oneOf(['http/protobuf', 'http/json'] as const, { anyCase: true }),
  unset: '`OTEL_EXPORTER_OTLP_PROTOCOL`',
  meaning: 'How spans are sent, in place of `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` or `http/json`',
})

export const OTEL_RESOURCE_ATTRIBUTES = optional({
  name: 'OTEL_RESOURCE_ATTRIBUTES',
  codec: resourceAttributes,
  unset: 'none',
  meaning:
    "Attributes of every span's resource, `key=value` comma-separated (values percent-encoded), such as " +
    '`deployment.environment.name=staging`',
})

// Numbers the SDK reads itself, checked here: the SDK takes a value it cannot read as its default, silently.
const sdkNumber = (name: string, min: number, unset: string, meaning: string) =>
  optional({ name, codec: integer(min, 2 ** 31 - 1), unset, meaning: `${meaning}; read by the SDK` })

export const OTEL_BSP_SCHEDULE_DELAY = sdkNumber(
  'OTEL_BSP_SCHEDULE_DELAY',
  0,
  '`5000`',
  'Milliseconds between exports',
)
export const OTEL_BSP_EXPORT_TIMEOUT = sdkNumber(
  'OTEL_BSP_EXPORT_TIMEOUT',
  1,
  '`30000`',
  'Milliseconds an export may take',
)
export const OTEL_BSP_MAX_QUEUE_SIZE = sdkNumber(
  'OTEL_BSP_MAX_QUEUE_SIZE',
  1,
  '`2048`',
  'Spans waiting to be sent; past it, spans are lost (counted in `tracing_spans_total`), never requests',
)
export const OTEL_BSP_MAX_EXPORT_BATCH_SIZE = sdkNumber(
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  1,
  '`512`',
  'Spans sent in one request to the receiver',
)
export const OTEL_EXPORTER_OTLP_TIMEOUT = sdkNumber(
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  1,
  '`10000`',
  'Milliseconds the receiver may take to answer one export',
)

export const OTEL_SERVICE_NAME = variable({
  name: 'OTEL_SERVICE_NAME',
  codec: named,
  default: {
    text: '`service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `animal-store`',
    of: (get) => get(OTEL_RESOURCE_ATTRIBUTES)?.['service.name'] ?? 'animal-store',
  },
  meaning: 'The `service.name` of the spans',
})

export const OTEL_TRACES_SAMPLER = variable({
  name: 'OTEL_TRACES_SAMPLER',
  codec: oneOf(TRACES_SAMPLERS, { anyCase: true }),
  default: { value: 'parentbased_always_on' },
  meaning:
    'Which requests are traced: `always_on`, `always_off`, `traceidratio` (a share of them, by trace id), or ' +
    "`parentbased_…` of each: as the caller's `traceparent` says, when there is one and the request's API key " +
    'is known in memory (any other request is sampled as a root: see "Tracing")',
})

export const OTEL_TRACES_SAMPLER_ARG = optional({
  name: 'OTEL_TRACES_SAMPLER_ARG',
  codec: ratio,
  unset: '`1`',
  meaning: 'The share of traces the `traceidratio` samplers keep, from 0 to 1 (`0.1`: one in ten)',
})

/** Every variable of this file, in the table's order. */
export const TRACING_VARIABLES = [
  OTEL_SDK_DISABLED,
  OTEL_EXPORTER_OTLP_ENDPOINT,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  OTEL_EXPORTER_OTLP_PROTOCOL,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
  OTEL_SERVICE_NAME,
  OTEL_RESOURCE_ATTRIBUTES,
  OTEL_TRACES_SAMPLER,
  OTEL_TRACES_SAMPLER_ARG,
  OTEL_BSP_SCHEDULE_DELAY,
  OTEL_BSP_EXPORT_TIMEOUT,
  OTEL_BSP_MAX_QUEUE_SIZE,
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
  OTEL_EXPORTER_OTLP_TIMEOUT,
] as const

// The specification's rule: the signal's own URL as it is; the general one with `v1/traces` after it.
const tracesUrl = (get: Get): string | undefined => {
  const own = get(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (own !== undefined) return own
  const base = get(OTEL_EXPORTER_OTLP_ENDPOINT)
  return base === undefined ? undefined : `${base}${base.endsWith('/') ? '' : '/'}v1/traces`
}

/** Tracing as the variables ask for it: none unless an endpoint is set and the SDK is not disabled. */
export const tracingOf = (get: Get): TracingConfig | undefined => {
  const url = tracesUrl(get)
  if (url === undefined || get(OTEL_SDK_DISABLED)) return undefined
  const samplerArg = get(OTEL_TRACES_SAMPLER_ARG)
  return {
    url,
    // As the endpoint: the signal's own variable over the general one.
    protocol: get(OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? get(OTEL_EXPORTER_OTLP_PROTOCOL),
    serviceName: get(OTEL_SERVICE_NAME),
    resourceAttributes: get(OTEL_RESOURCE_ATTRIBUTES) ?? {},
    sampler: get(OTEL_TRACES_SAMPLER),
    ...(samplerArg === undefined ? {} : { samplerArg }),
  }
}
