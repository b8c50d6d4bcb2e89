import * as t from 'io-ts'
import { TRACES_SAMPLERS, type TracingConfig } from './app-config.js'
import { oneOf } from './codecs.js'
import { httpUrl } from './url-codecs.js'
import { optional, variable, type Get } from './variable.js'

// The OpenTelemetry variables the service reads itself, named and meant as the specification has them
// (its "Environment Variable Specification"); the SDK reads its others (OTEL_EXPORTER_OTLP_HEADERS, …).

// `true` or `false` in any case, as the specification reads booleans.
const flag = new t.Type<boolean, string, unknown>(
  'Flag',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => {
    const text = typeof u === 'string' ? u.toLowerCase() : ''
    return text === 'true' || text === 'false'
      ? t.success(text === 'true')
      : t.failure(u, c, 'must be true or false')
  },
  String,
)

// A probability: from 0 to 1.
const ratio = new t.Type<number, string, unknown>(
  'Ratio',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    const n = typeof u === 'string' && /^[0-9]{1,3}(\.[0-9]{1,17})?$/.test(u) ? Number(u) : Number.NaN
    return n >= 0 && n <= 1 ? t.success(n) : t.failure(u, c, 'must be a number from 0 to 1, such as 0.1')
  },
  String,
)

const decodedValue = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.trim())
  } catch {
    return undefined
  }
}

// `key=value,…`, each value percent-encoded as W3C Baggage writes it.
const resourceAttributes = new t.Type<Readonly<Record<string, string>>, string, unknown>(
  'ResourceAttributes',
  (u): u is Readonly<Record<string, string>> => typeof u === 'object' && u !== null,
  (u, c) => {
    const pairs = typeof u === 'string' ? u.split(',') : ['']
    const entries = pairs.map((pair) => {
      const equals = pair.indexOf('=')
      const key = pair.slice(0, Math.max(equals, 0)).trim()
      const value = equals === -1 ? undefined : decodedValue(pair.slice(equals + 1))
      return /^[\x21-\x7E]{1,255}$/.test(key) && value !== undefined ? [key, value] : undefined
    })
    return entries.every((entry) => entry !== undefined)
      ? t.success(Object.fromEntries(entries))
      : t.failure(u, c, 'must be comma-separated key=value pairs, each value percent-encoded')
  },
  (attributes) =>
    Object.entries(attributes)
      .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
      .join(','),
)

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
  codec: oneOf(['http/protobuf', 'http/json'] as const),
  default: { value: 'http/protobuf' },
  meaning: 'How spans are sent: `http/protobuf` or `http/json` (OTLP over HTTP; gRPC is not offered)',
})

export const OTEL_RESOURCE_ATTRIBUTES = optional({
  name: 'OTEL_RESOURCE_ATTRIBUTES',
  codec: resourceAttributes,
  unset: 'none',
  meaning:
    "Attributes of every span's resource, `key=value` comma-separated (values percent-encoded), such as " +
    '`deployment.environment.name=staging`',
})

export const OTEL_SERVICE_NAME = variable({
  name: 'OTEL_SERVICE_NAME',
  codec: t.string,
  default: {
    text: '`service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `animal-store`',
    of: (get) => get(OTEL_RESOURCE_ATTRIBUTES)?.['service.name'] ?? 'animal-store',
  },
  meaning: 'The `service.name` of the spans',
})

export const OTEL_TRACES_SAMPLER = variable({
  name: 'OTEL_TRACES_SAMPLER',
  codec: oneOf(TRACES_SAMPLERS),
  default: { value: 'parentbased_always_on' },
  meaning:
    'Which requests are traced: `always_on`, `always_off`, `traceidratio` (a share of them, by trace id), or ' +
    "`parentbased_…` of each: as the caller's `traceparent` says when there is one",
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
  OTEL_SERVICE_NAME,
  OTEL_RESOURCE_ATTRIBUTES,
  OTEL_TRACES_SAMPLER,
  OTEL_TRACES_SAMPLER_ARG,
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
    protocol: get(OTEL_EXPORTER_OTLP_PROTOCOL),
    serviceName: get(OTEL_SERVICE_NAME),
    resourceAttributes: get(OTEL_RESOURCE_ATTRIBUTES) ?? {},
    sampler: get(OTEL_TRACES_SAMPLER),
    ...(samplerArg === undefined ? {} : { samplerArg }),
  }
}
