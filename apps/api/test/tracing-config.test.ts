import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'

const base = { API_KEYS: 'k1' }
const tracingOf = (env: Record<string, string>) => {
  const config = loadConfig({ ...base, ...env })
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  return config.right.tracing
}
const problemsOf = (env: Record<string, string>) => {
  const config = loadConfig({ ...base, ...env })
  return E.isLeft(config) ? config.left : []
}

describe('tracing, as the OTEL_* variables ask for it', () => {
  it('is off without an endpoint, whatever else is set, and off when OTEL_SDK_DISABLED is true in any case', () => {
    expect(tracingOf({})).toBeUndefined()
    expect(tracingOf({ OTEL_SERVICE_NAME: 'pets', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined()
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined()
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBeDefined()
  })

  it('sends to the general endpoint with /v1/traces after it, or to the traces endpoint as it is', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.url).toBe(
      'http://collector:4318/v1/traces',
    )
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp/' })?.url).toBe(
      'https://otel.example.com/otlp/v1/traces',
    )
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
      })?.url,
    ).toBe('http://traces:9999/custom')
  })

  it('has the defaults of the specification: protobuf, parent-based always on, the service named animal-store', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'animal-store',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
    })
  })

  it('reads the resource attributes percent-decoded, their service.name unless OTEL_SERVICE_NAME says otherwise', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    const attributes = 'service.name=pets-eu, deployment.environment.name=prod,note=a%2Cb%3Dc'
    expect(tracingOf({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes })).toMatchObject({
      serviceName: 'pets-eu',
      resourceAttributes: { 'service.name': 'pets-eu', 'deployment.environment.name': 'prod', note: 'a,b=c' },
    })
    expect(
      tracingOf({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'pets' })
        ?.serviceName,
    ).toBe('pets')
  })

  it('names each variable that is not valid, never taking a guess', () => {
    expect(
      problemsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'jaeger_remote',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_RESOURCE_ATTRIBUTES: 'no-value,=x',
        OTEL_SDK_DISABLED: 'yes',
      }),
    ).toEqual([
      'OTEL_SDK_DISABLED must be true or false',
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http or https URL without query or fragment',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json',
      'OTEL_RESOURCE_ATTRIBUTES must be comma-separated key=value pairs, each value percent-encoded',
      'OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, ' +
        'parentbased_always_off, parentbased_traceidratio',
      'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, such as 0.1',
    ])
  })

  it("refuses a blank service name and the SDK's numbers it would take as their defaults without a word", () => {
    expect(
      problemsOf({
        OTEL_SERVICE_NAME: ' ',
        OTEL_BSP_SCHEDULE_DELAY: '1.5',
        OTEL_BSP_EXPORT_TIMEOUT: '0',
        OTEL_BSP_MAX_QUEUE_SIZE: '-5',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1e3',
        OTEL_EXPORTER_OTLP_TIMEOUT: 'abc',
      }),
    ).toEqual([
      'OTEL_SERVICE_NAME must not be blank',
      'OTEL_BSP_SCHEDULE_DELAY must be an integer from 0 to 2147483647',
      'OTEL_BSP_EXPORT_TIMEOUT must be an integer from 1 to 2147483647',
      'OTEL_BSP_MAX_QUEUE_SIZE must be an integer from 1 to 2147483647',
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be an integer from 1 to 2147483647',
      'OTEL_EXPORTER_OTLP_TIMEOUT must be an integer from 1 to 2147483647',
    ])
    expect(problemsOf({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_EXPORTER_OTLP_TIMEOUT: '2000' })).toEqual([])
  })

  it("reads the sampler and the protocol in any case, as the specification's enums", () => {
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
        OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toMatchObject({ protocol: 'http/json', sampler: 'parentbased_traceidratio', samplerArg: 0.25 })
  })

  it('sends by OTEL_EXPORTER_OTLP_TRACES_PROTOCOL over OTEL_EXPORTER_OTLP_PROTOCOL, as the endpoints go', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    expect(tracingOf({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })?.protocol).toBe(
      'http/json',
    )
    expect(
      tracingOf({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      })?.protocol,
    ).toBe('http/protobuf')
    expect(problemsOf({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toEqual([
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be one of http/protobuf, http/json',
    ])
  })

  it('takes the ratio of the sampler', () => {
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }),
    ).toMatchObject({ sampler: 'parentbased_traceidratio', samplerArg: 0.1 })
  })
})
