import Fastify, { type FastifyError } from 'fastify'
import { baselineConfig } from './baseline-config.js'
import {
  createKeyCheck,
  deprecationHeaders,
  errorBody,
  HARDENING,
  MAX_BODY_BYTES,
  MAX_ID,
  pastSunset,
  requestIdOf,
  STATUSES,
  toPage,
  type NewPet,
  type Status,
} from './contract.js'
import { storeFromEnv } from './pet-store.js'

// The framework a team would pick instead: Fastify 5, its JSON-schema validation (Ajv) of the
// query, the path and the body, and its compiled serializers (fast-json-stringify) for responses.
const config = baselineConfig(process.env)
const store = storeFromEnv(process.env)
const isKnownKey = createKeyCheck(config.apiKeys)
const base = config.publicBaseUrl
const getPetHeaders = deprecationHeaders(base)

const pet = {
  type: 'object',
  required: ['id', 'name', 'categoryId', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
} as const

const app = Fastify({
  logger: false,
  bodyLimit: MAX_BODY_BYTES,
  // Fastify's Ajv drops unknown properties by default; the contract refuses them.
  ajv: { customOptions: { removeAdditional: false } },
})

app.setErrorHandler((error: FastifyError, _request, reply) => {
  const status = error.validation !== undefined ? 400 : (error.statusCode ?? 500)
  const code =
    status === 400 ? 'validation_failed' : status === 415 ? 'unsupported_media_type' : 'internal_error'
  void reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, code, error.message))
})

app.addHook('onRequest', (request, reply, done) => {
  const header = request.headers['x-request-id']
  void reply.header('X-Request-Id', requestIdOf(typeof header === 'string' ? header : undefined))
  for (const [name, value] of HARDENING) void reply.header(name, value)
  if (request.url.startsWith('/v1') && !isKnownKey(request.headers.authorization)) {
    void reply
      .code(401)
      .header('WWW-Authenticate', 'Bearer realm="animal-store"')
      .type('application/json; charset=utf-8')
      .send(errorBody(401, 'unauthorized', 'A valid API key is required.'))
    return
  }
  done()
})

app.get('/healthz', (_request, reply) => {
  void reply.type('application/json; charset=utf-8').send('{"status":"ok"}')
})

app.get<{ Querystring: { limit: number; after: number; status?: Status } }>(
  '/v1/pets',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          after: { type: 'integer', minimum: 0, maximum: MAX_ID, default: 0 },
          status: { type: 'string', enum: STATUSES },
        },
      },
      response: { 200: { type: 'array', items: pet } },
    },
  },
  async (request, reply) => {
    const listing = { limit: request.query.limit, after: request.query.after, status: request.query.status }
    const page = toPage(base, listing, await store.list({ ...listing, limit: listing.limit + 1 }))
    if (page.link !== undefined) void reply.header('Link', page.link)
    return page.pets
  },
)

app.post<{ Body: NewPet }>(
  '/v1/pets',
  {
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'categoryId'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
          categoryId: { type: 'integer', minimum: 1, maximum: MAX_ID },
          status: { type: 'string', enum: STATUSES },
        },
      },
      response: { 201: pet },
    },
  },
  async (request, reply) => {
    const { name, categoryId, status = 'available' } = request.body
    const added = await store.add({ name, categoryId, status })
    void reply.code(201).header('Location', `${base}/pets/${added.id}`)
    return added
  },
)

app.get<{ Params: { petId: number } }>(
  '/v1/pets/:petId',
  {
    schema: {
      params: {
        type: 'object',
        required: ['petId'],
        properties: { petId: { type: 'integer', minimum: 1, maximum: MAX_ID } },
      },
      response: { 200: pet },
    },
  },
  async (request, reply) => {
    void reply.headers(getPetHeaders)
    if (pastSunset())
      return reply
        .code(410)
        .type('application/json; charset=utf-8')
        .send(errorBody(410, 'gone', 'The getPet operation was removed.'))
    const found = await store.get(request.params.petId)
    if (found === undefined)
      return reply
        .code(404)
        .type('application/json; charset=utf-8')
        .send(errorBody(404, 'not_found', `No pet has id ${request.params.petId}.`))
    return found
  },
)

await app.listen({ host: config.host, port: config.port })
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => store.close())
    .finally(() => process.exit(0))
})
