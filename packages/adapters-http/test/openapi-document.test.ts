import { Validator } from '@seriousme/openapi-schema-validator'
import {
  checked,
  DEFAULT_PAGE_LIMIT,
  DEFAULT_PET_STATUS,
  GET_PET_SUNSET,
  MAX_ID,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PAGE_LIMIT,
} from '@pets/domain'
import * as t from 'io-ts'
import { get } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildOpenApiDocument, ROUTES } from '../src/index.js'
import { jsonSchemaOf } from '@pets/wire'
import { appOptions, KEY, serve } from './serve.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const SERVERS = [{ url: 'https://api.example.com/v1', description: 'production' }]
const doc = buildOpenApiDocument({ servers: SERVERS }) as Json
const operation = (path: string, method: string): Json => doc.paths[path][method]
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
)

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('is checked by a validator that refuses a broken document', async () => {
    const withoutDescription = { ...doc, paths: { '/pets': { get: { responses: { 200: {} } } } } }
    expect((await new Validator().validate(withoutDescription)).valid).toBe(false)
    const { info: _, ...withoutInfo } = doc
    expect((await new Validator().validate(withoutInfo)).valid).toBe(false)
  })

  it('is numbered 1.0.0, needs the bearer scheme everywhere, and lists the servers it is given', () => {
    expect(doc.info.version).toBe('1.0.0')
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.security).toEqual([{ bearerAuth: [] }])
    expect(doc.servers).toEqual(SERVERS)
  })

  it('has listPets, createPet and getPet under pets, and GET /store/orders under store', () => {
    expect(operations.map(({ path, method, op }) => [method, path, op.operationId, op.tags])).toEqual([
      ['get', '/pets', 'listPets', ['pets']],
      ['post', '/pets', 'createPet', ['pets']],
      ['get', '/pets/{petId}', 'getPet', ['pets']],
      ['get', '/store/orders', 'listOrders', ['store']],
    ])
  })

  it('marks getPet, and only getPet, deprecated, with its sunset date', () => {
    expect(operations.filter(({ op }) => op.deprecated === true).map(({ op }) => op.operationId)).toEqual([
      'getPet',
    ])
    const getPet = operation('/pets/{petId}', 'get')
    expect(getPet['x-sunset']).toBe(GET_PET_SUNSET.toISOString())
    expect(getPet.description).toContain('2030-12-05')
  })

  it("takes the limits of parameters and fields from the domain's constants", () => {
    const [limit, status, after] = operation('/pets', 'get').parameters as Array<Json>
    expect(limit).toMatchObject({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
    })
    expect(status).toMatchObject({ name: 'status', schema: { $ref: '#/components/schemas/PetStatus' } })
    expect(after).toMatchObject({ name: 'after', schema: { minimum: 0, maximum: MAX_ID, format: 'int64' } })
    expect(operation('/pets/{petId}', 'get').parameters).toMatchObject([
      { name: 'petId', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: MAX_ID } },
    ])
    expect(operation('/pets', 'post').parameters).toMatchObject([
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      },
    ])
    const { Pet, NewPet, PetStatus } = doc.components.schemas
    expect(Pet.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH })
    expect(Pet.required).toEqual(['id', 'name', 'categoryId', 'status'])
    expect(NewPet.required).toEqual(['name', 'categoryId'])
    expect(NewPet.properties.status.default).toBe(DEFAULT_PET_STATUS)
    expect(PetStatus.enum).toEqual(['available', 'pending', 'sold'])
    for (const schema of [Pet, NewPet, doc.components.schemas.Error])
      expect(schema.additionalProperties).toBe(false)
  })

  it('documents each answer of each operation with the code that toErrorResponse gives it', () => {
    const codes = (path: string, method: string) =>
      Object.fromEntries(
        Object.entries(operation(path, method).responses as Json).map(([status, response]) => [
          status,
          response.content['application/json'].schema.properties?.code?.enum ?? 'success',
        ]),
      )
    // Every operation: authentication, the rate limit, a URL too long, the store, a defect.
    const everywhere = {
      400: ['validation_failed'],
      401: ['unauthorized'],
      429: ['rate_limited'],
      500: ['internal_error'],
      503: ['unavailable'],
    }
    expect(codes('/pets', 'get')).toEqual({ 200: 'success', ...everywhere })
    expect(codes('/pets', 'post')).toEqual({
      201: 'success',
      ...everywhere,
      409: ['idempotency_key_in_use'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      422: ['idempotency_key_reused'],
      501: ['not_implemented'],
    })
    expect(codes('/pets/{petId}', 'get')).toEqual({
      200: 'success',
      ...everywhere,
      404: ['not_found'],
      410: ['gone'],
    })
    expect(codes('/store/orders', 'get')).toEqual({ ...everywhere, 501: ['not_implemented'] })
  })

  it('documents the headers of the contract, required where they always come', () => {
    // The headers of one response that are not the common ones, each with whether it is required.
    const headers = (path: string, method: string, status: string) =>
      Object.fromEntries(
        Object.entries(operation(path, method).responses[status].headers as Json)
          .filter(([, header]) => header.$ref === undefined)
          .map(([name, header]) => [name, header.required]),
      )
    expect(headers('/pets', 'get', '200')).toEqual({ Link: false })
    expect(headers('/pets', 'post', '201')).toEqual({ Location: true })
    expect(headers('/pets', 'get', '401')).toEqual({ 'WWW-Authenticate': true })
    expect(headers('/pets', 'get', '503')).toEqual({ 'Retry-After': true })
    expect(headers('/pets', 'get', '429')).toEqual({ 'Retry-After': true })
    const deprecation = { Deprecation: true, Sunset: true, Link: true }
    for (const status of ['200', '404', '410'])
      expect(headers('/pets/{petId}', 'get', status)).toEqual(deprecation)
    // The rate limit (after authentication) carries them too.
    expect(headers('/pets/{petId}', 'get', '429')).toEqual({ 'Retry-After': true, ...deprecation })
    // CONTRACT: a 401 of getPet carries only the authentication headers. A bad petId and a URL too long (the
    // operation's) carry them, a request the parser cannot read (before authentication) does not; a defect's
    // 500 carries them after authentication.
    expect(headers('/pets/{petId}', 'get', '401')).toEqual({ 'WWW-Authenticate': true })
    const sometimes = { Deprecation: false, Sunset: false, Link: false }
    expect(headers('/pets/{petId}', 'get', '400')).toEqual(sometimes)
    expect(headers('/pets/{petId}', 'get', '500')).toEqual(sometimes)
    // Answers of authentication, and of the store failing during the operation, share the 503.
    expect(headers('/pets/{petId}', 'get', '503')).toEqual({
      'Retry-After': true,
      Deprecation: false,
      Sunset: false,
      Link: false,
    })
    expect(doc.components.responses.MethodNotAllowed.headers.Allow.required).toBe(true)
  })

  it('refers every response to the X-Request-Id header, which is required', () => {
    const responses = [
      ...operations.flatMap(({ op }) => Object.values(op.responses as Json)),
      ...Object.values(doc.components.responses as Json),
    ]
    for (const response of responses)
      expect(response.headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/X-Request-Id' })
    expect(doc.components.headers['X-Request-Id']).toMatchObject({
      required: true,
      schema: { type: 'string' },
    })
  })

  it('writes the deprecation headers of getPet as the service sends them', () => {
    const { Deprecation, Sunset, Link } = operation('/pets/{petId}', 'get').responses['200'].headers
    expect(Deprecation.schema.const).toBe('@1767225600')
    expect(Sunset.schema.const).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
    expect(
      new RegExp(Link.schema.pattern).test('<https://api.example.com/v1/pets>; rel="successor-version"'),
    ).toBe(true)
  })
})

describe('the route table and the served routes', () => {
  let app: Awaited<ReturnType<typeof serve>>
  const authed = (path: string, init: RequestInit = {}) =>
    app.fetch(path, {
      ...init,
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    })
  beforeAll(async () => {
    app = await serve(appOptions())
    expect((await authed('/v1/pets', { method: 'POST', body: '{"name":"Rex","categoryId":1}' })).status).toBe(
      201,
    )
  })
  afterAll(() => app.close())

  it.each(operations.map(({ path, method, op }) => ({ path, method, op, id: op.operationId as string })))(
    '$id ($method $path) is served: it answers its success, or 501 when it documents none',
    async ({ path, method, op }) => {
      const res = await authed(`/v1${path.replace('{petId}', '1')}`, {
        method: method.toUpperCase(),
        ...(method === 'post' ? { body: '{"name":"Rex","categoryId":1}' } : {}),
      })
      const statuses = Object.keys(op.responses as Json)
      expect(String(res.status)).toBe(statuses.find((status) => status.startsWith('2')) ?? '501')
      expect(statuses).toContain(String(res.status))
    },
  )

  it('describes every route of the table, and nothing else', () => {
    expect(operations.map(({ op }) => op.operationId).sort()).toEqual(ROUTES.map((r) => r.operationId).sort())
  })

  it('serves the document at /openapi.json with the servers of the app', async () => {
    const res = await app.fetch('/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(((await res.json()) as Json).servers).toEqual([{ url: 'https://api.example.com/v1' }])
  })

  it('answers a request for /openapi.json with a matching ETag with 304', async () => {
    const first = await app.fetch('/openapi.json')
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^".+"$/)
    // fetch adds `Cache-Control: no-cache` to a conditional request, which forbids a 304.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${app.url}/openapi.json`, { headers: { 'If-None-Match': etag! } }, (res) => {
        res.resume()
        resolve(res.statusCode)
      }).on('error', reject),
    )
    expect(status).toBe(304)
  })
})

describe('jsonSchemaOf', () => {
  it('refuses a codec it cannot describe, rather than describing it as anything', () => {
    expect(() => jsonSchemaOf(t.unknown)).toThrow(/Cannot describe the codec unknown/)
    const unchecked = checked<number, number>('Unchecked', t.number, 'must be a number', () => undefined)
    expect(() => jsonSchemaOf(t.type({ n: unchecked }))).toThrow(/Unchecked/)
  })

  it('describes an intersection of objects as one closed object', () => {
    const codec = t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })])
    expect(jsonSchemaOf(codec)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    })
  })
})
