import { buildServer } from '@platformatic/db'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { baselineConfig } from './baseline-config.js'
import {
  createKeyCheck,
  decodeListing,
  decodeNewPet,
  encodePet,
  encodePets,
  errorBody,
  HARDENING,
  requestIdOf,
  toPage,
  type Pet,
  type Status,
} from './contract.js'
import { ORDERING_LOCK } from './pet-store.js'

// Platformatic DB 2.61 (the newest on Node 20) over the service's `pets` table, as a peer: the thinnest
// adaptation that answers list 20, list 100 with a status and create with the service's JSON. What it
// does and does not do: bench/README.md. It reflects the table into an entity (sql-mapper), which the
// listings use; its generated REST and GraphQL APIs are switched off (their JSON is not the contract's).

// The part of Platformatic's `app.platformatic` (sql-mapper and @databases/pg) the routes use.
type Row = {
  readonly id: string
  readonly name: string
  readonly categoryId: string
  readonly status: Status
}
type Where = Record<string, Record<string, unknown>>
type Platformatic = {
  readonly entities: {
    readonly pet: {
      readonly find: (options: {
        where: Where
        orderBy: ReadonlyArray<{ field: string; direction: 'asc' | 'desc' }>
        limit: number
        fields: ReadonlyArray<string>
      }) => Promise<ReadonlyArray<Row>>
    }
  }
  readonly db: { readonly query: (statement: unknown) => Promise<ReadonlyArray<Row>> }
  readonly sql: (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>) => unknown
}

const config = baselineConfig(process.env)
const isKnownKey = createKeyCheck(config.apiKeys)
const base = config.publicBaseUrl
const FIELDS = ['id', 'name', 'categoryId', 'status']
// sql-mapper returns bigint columns as strings.
const toPet = (row: Row): Pet => ({
  id: Number(row.id),
  name: row.name,
  categoryId: Number(row.categoryId),
  status: row.status,
})
const REFUSALS: Readonly<Record<number, string>> = {
  400: 'validation_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
}
const sendError = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, code, message))

const app = (await buildServer({
  // Platformatic's generator writes `info`: a line as each request comes in and one as it ends.
  server: { hostname: config.host, port: config.port, logger: { level: 'info' } },
  db: {
    connectionString: process.env['DATABASE_URL'],
    graphql: false,
    openapi: false,
    include: { pets: true },
    // A page of 100 reads 101 rows, to tell whether there is a next one.
    limit: { max: 101 },
  },
})) as FastifyInstance & { readonly platformatic: Platformatic; readonly start: () => Promise<string> }
const { entities, db, sql } = app.platformatic

await app.register(async (scope) => {
  // Fastify's own refusals (malformed JSON, another media type, too large) in the contract's shape.
  scope.setErrorHandler((error: FastifyError, _request, reply) => {
    const code = REFUSALS[error.statusCode ?? 500]
    return code === undefined
      ? sendError(reply, 503, 'unavailable', 'The pet store cannot be reached right now.')
      : sendError(reply, error.statusCode!, code, error.message)
  })
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers['x-request-id']
    void reply.header('X-Request-Id', requestIdOf(typeof header === 'string' ? header : undefined))
    for (const [name, value] of HARDENING) void reply.header(name, value)
    if (request.url.startsWith('/v1') && !isKnownKey(request.headers.authorization)) {
      void reply.header('WWW-Authenticate', 'Bearer realm="animal-store"')
      return sendError(reply, 401, 'unauthorized', 'A valid API key is required.')
    }
  })
  scope.get('/healthz', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send('{"status":"ok"}'),
  )

  scope.get('/v1/pets', async (request, reply) => {
    const mark = request.url.indexOf('?')
    const listing = decodeListing(mark === -1 ? '' : request.url.slice(mark + 1))
    if (typeof listing === 'string')
      return sendError(reply, 400, 'validation_failed', `Invalid request: ${listing}.`)
    const where: Where = { id: { gt: listing.after } }
    if (listing.status !== undefined) where['status'] = { eq: listing.status }
    const rows = await entities.pet.find({
      where,
      orderBy: [{ field: 'id', direction: 'asc' }],
      limit: listing.limit + 1,
      fields: FIELDS,
    })
    const page = toPage(base, listing, rows.map(toPet))
    if (page.link !== undefined) void reply.header('Link', page.link)
    return reply.type('application/json; charset=utf-8').send(encodePets(page.pets))
  })

  // Fastify has parsed the JSON (415 and 400 are its own); the contract's rules are checked by hand.
  // The entity's save is a bare INSERT: without the service's id-ordering lock, and a transaction
  // around it would hold the lock across three round trips. So the service's one statement, run
  // through Platformatic's connection pool.
  scope.post('/v1/pets', { bodyLimit: 64 * 1024 }, async (request, reply) => {
    const pet = decodeNewPet(request.body)
    if (typeof pet === 'string') return sendError(reply, 400, 'validation_failed', pet)
    const [row] = await db.query(sql`
      WITH ordered AS (SELECT pg_advisory_xact_lock(${ORDERING_LOCK}))
      INSERT INTO pets (name, category_id, status)
      SELECT ${pet.name}, ${String(pet.categoryId)}::bigint, ${pet.status} FROM ordered
      RETURNING id, name, category_id AS "categoryId", status`)
    const added = toPet(row!)
    return reply
      .code(201)
      .header('Location', `${base}/pets/${added.id}`)
      .type('application/json; charset=utf-8')
      .send(encodePet(added))
  })
})

await app.start()
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)))
