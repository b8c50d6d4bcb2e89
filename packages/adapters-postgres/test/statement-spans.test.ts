import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api'
import type { ApiKeyName, PageCursor, PetData } from '@pets/domain'
import { aCreation, run, runLeft } from '@pets/domain/testing'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createPostgresApiKeyStore,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  fromKysely,
  type Database,
} from '../src/index.js'
import { storeCall } from '../src/runner/unavailable.js'
import { querySummary } from '../src/runner/query-summary.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const exported = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] })
beforeAll(() => provider.register())
afterAll(async () => {
  await provider.shutdown()
  trace.disable()
  context.disable()
})
afterEach(() => exported.reset())

const REX = { name: 'Rex', categoryId: 1, status: 'available' } as PetData
const everything = { limit: 20, after: 0 as PageCursor }
// What a request's handler does: calls a port while its span is the active one.
const inRequest = <A>(call: () => Promise<A>): Promise<A> => {
  const request = provider.getTracer('test').startSpan('GET /v1/pets', { kind: SpanKind.SERVER })
  return context.with(trace.setSpan(context.active(), request), call).finally(() => request.end())
}
const spans = () => exported.getFinishedSpans()
const request = () => spans().find((s) => s.name === 'GET /v1/pets')!

describe('a span per database statement, a child of the request that ran it', () => {
  const { open, track } = useFreshDatabases()

  it('names a listing by its summary, with the stable conventions and no parameter value', async () => {
    const fresh = await open()
    const pets = createPostgresPetRepository(fresh)
    await inRequest(() => run(pets.list({ ...everything, status: 'sold' })))
    const statement = spans().find((s) => s.name === 'SELECT pets')!
    expect(statement.kind).toBe(SpanKind.CLIENT)
    expect(statement.parentSpanContext?.spanId).toBe(request().spanContext().spanId)
    expect(statement.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.namespace': fresh.name,
      'db.operation.name': 'SELECT',
      'db.query.summary': 'SELECT pets',
      'server.address': expect.any(String),
      'server.port': expect.any(Number),
    })
    expect(JSON.stringify(statement.attributes)).not.toContain('sold')
  })

  it('gives each creation of a batch its own span, with the batch size, a child of its own request', async () => {
    const fresh = await open()
    const pets = createPostgresPetRepository(fresh)
    await Promise.all([1, 2, 3].map(() => inRequest(() => run(pets.add(REX)))))
    const inserts = spans().filter((s) => s.name === 'INSERT pets')
    const requests = spans().filter((s) => s.name === 'GET /v1/pets')
    expect(inserts).toHaveLength(3)
    expect(new Set(inserts.map((s) => s.parentSpanContext?.spanId))).toEqual(
      new Set(requests.map((r) => r.spanContext().spanId)),
    )
    // The first went alone; the two that came while it was under way, together.
    expect(inserts.map((s) => s.attributes['db.operation.batch.size'] ?? 1).sort()).toEqual([1, 2, 2])
    // Begun before a connection was chosen, each says at its end where its batch ran.
    for (const insert of inserts)
      expect(insert.attributes).toMatchObject({
        'db.namespace': fresh.name,
        'server.address': expect.any(String),
        'server.port': expect.any(Number),
      })
  })

  it('says where an idempotent creation ran, as a listing does', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh)
    await inRequest(() => run(creations.addOnce(aCreation())))
    const [statement] = spans().filter((s) => s.name.includes('create_pets_once'))
    expect(statement?.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.namespace': fresh.name,
      'server.address': expect.any(String),
      'server.port': expect.any(Number),
    })
  })

  it('ends a failed statement with its SQLSTATE and error.type', async () => {
    const fresh = await open()
    await fresh.pool.query('ALTER TABLE pets RENAME TO pets_elsewhere')
    const pets = createPostgresPetRepository(fresh)
    await inRequest(() => runLeft(pets.list(everything)).catch(() => undefined))
    const failed = spans().find((s) => s.name === 'SELECT pets')!
    expect(failed.attributes).toMatchObject({ 'db.response.status_code': '42P01', 'error.type': '42P01' })
    expect(failed.status.code).toBe(2)
  })

  it('shows a wait for a pooled connection that lasted 5 ms or more, and each retry of a call', async () => {
    const fresh = await open({ poolSize: 1 })
    const client = await fresh.pool.connect()
    const list = inRequest(() => run(createPostgresPetRepository(fresh).list(everything)))
    await new Promise((resolve) => setTimeout(resolve, 30))
    client.release()
    const held = await list
    expect(held).toEqual([])
    const wait = spans().find((s) => s.name === 'postgresql pool wait')!
    expect(wait.parentSpanContext?.spanId).toBe(request().spanContext().spanId)
    expect(wait.duration[0] * 1000 + wait.duration[1] / 1e6).toBeGreaterThanOrEqual(25)

    exported.reset()
    let attempts = 0
    // Called in the request, as a port is: its retry is a child of the request's span.
    const flaky = () =>
      storeCall<string>(
        (ok, fail) =>
          ++attempts === 1 ? fail(Object.assign(new Error('deadlock'), { code: '40P01' })) : ok('done'),
        { operation: 'pets.add' },
      )
    expect(await inRequest(() => run(flaky()))).toBe('done')
    const retry = spans().find((s) => s.name === 'retry pets.add')!
    expect(retry.parentSpanContext?.spanId).toBe(request().spanContext().spanId)
    expect(retry.attributes).toMatchObject({ 'retry.attempt': 2, 'db.response.status_code': '40P01' })
  })

  it('reads the context when the port is called, not when its task runs (a synchronous context manager)', async () => {
    const fresh = await open()
    const pets = createPostgresPetRepository(fresh)
    const request = provider.getTracer('test').startSpan('GET /v1/pets', { kind: SpanKind.SERVER })
    const inIt = trace.setSpan(ROOT_CONTEXT, request)
    const list = context.with(inIt, () => pets.list(everything))
    const add = context.with(inIt, () => pets.add(REX))
    // Run outside the request's context, as a task of fp-ts runs a microtask later.
    expect(context.active()).toBe(ROOT_CONTEXT)
    await run(list)
    await run(add)
    request.end()
    const statements = spans().filter((s) => s.name === 'SELECT pets' || s.name === 'INSERT pets')
    expect(statements.map((s) => s.name).sort()).toEqual(['INSERT pets', 'SELECT pets'])
    for (const s of statements) expect(s.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
  })

  it("names where a caller's own kysely runs when told, which kysely itself does not say", async () => {
    const fresh = await open()
    // A plain pg pool, as an embedder's: the adapters' own pool would give kysely's statements spans itself.
    const pool = new pg.Pool({ connectionString: fresh.url, max: 2 })
    track({ close: () => pool.end() })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    const where = { database: fresh.name, host: 'db.internal', port: 6432 }
    const told = createPostgresPetRepository(fromKysely(db, { target: where }))
    await inRequest(() => run(told.list(everything)))
    await Promise.all([1, 2].map(() => inRequest(() => run(told.add(REX)))))
    const statements = spans().filter((s) => s.name !== 'GET /v1/pets')
    expect(statements.map((s) => s.name).sort()).toEqual(['INSERT pets', 'INSERT pets', 'SELECT pets'])
    const attributes = { 'db.namespace': fresh.name, 'server.address': 'db.internal', 'server.port': 6432 }
    for (const statement of statements) expect(statement.attributes).toMatchObject(attributes)
    exported.reset()
    await inRequest(() => run(createPostgresPetRepository(fromKysely(db)).list(everything)))
    const untold = spans().find((s) => s.name === 'SELECT pets')!
    expect(Object.keys(untold.attributes).filter((name) => name in attributes)).toEqual([])
  })

  it("gives kysely's statements (a stored key's lookup) a span and their pool wait, read when the port is called", async () => {
    const fresh = await open({ poolSize: 1 })
    const keys = createPostgresApiKeyStore(fresh.db)
    const { key } = await run(keys.issue('billing' as ApiKeyName))
    exported.reset()
    const request = provider.getTracer('test').startSpan('GET /v1/pets', { kind: SpanKind.SERVER })
    const lookUp = context.with(trace.setSpan(ROOT_CONTEXT, request), () => keys.authenticate(key))
    // Its task runs outside the request's context, a connection frees 30 ms later.
    const client = await fresh.pool.connect()
    const found = run(lookUp)
    await new Promise((resolve) => setTimeout(resolve, 30))
    client.release()
    expect((await found)._tag).toBe('Some')
    request.end()
    const statement = spans().find((s) => s.name === 'SELECT api_keys')!
    expect(statement.kind).toBe(SpanKind.CLIENT)
    expect(statement.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
    expect(statement.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.namespace': fresh.name,
      'db.operation.name': 'SELECT',
      'db.query.summary': 'SELECT api_keys',
    })
    expect(JSON.stringify(statement.attributes)).not.toContain(key)
    const wait = spans().find((s) => s.name === 'postgresql pool wait')!
    expect(wait.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
    // Outside a request nothing is traced, on the same connection afterwards.
    exported.reset()
    await run(keys.authenticate(key))
    expect(spans()).toEqual([])
  })

  it("reports a 503 inside the request's context, so the host's warn line carries its ids", async () => {
    let reportedIn: string | undefined
    const unavailable = () =>
      storeCall<string>((_ok, fail) => fail(Object.assign(new Error('gone'), { code: '57P01' })), {
        operation: 'pets.list',
        onUnavailable: () => void (reportedIn = trace.getSpan(context.active())?.spanContext().spanId),
      })
    await inRequest(async () => void (await runLeft(unavailable())))
    expect(reportedIn).toBe(request().spanContext().spanId)
  })

  it('makes no span outside a request that records', async () => {
    const fresh = await open()
    await run(createPostgresPetRepository(fresh).list(everything))
    expect(spans()).toEqual([])
  })

  it('summarises statements as the conventions ask: the main operation after any WITH, and its target', () => {
    expect(querySummary('WITH a AS (UPDATE x SET y = 1) INSERT INTO pets (name) SELECT 1 FROM a')).toEqual({
      operation: 'INSERT',
      text: 'INSERT pets',
    })
    expect(querySummary('select * from "api_keys" where "digest" = $1').text).toBe('SELECT api_keys')
    expect(querySummary('SELECT * FROM create_pets_once($1, $2)').text).toBe('SELECT create_pets_once')
    expect(querySummary("UPDATE pet_insert_intents SET note = 'a ( b' WHERE slot = $1").text).toBe(
      'UPDATE pet_insert_intents',
    )
    expect(querySummary('SELECT 1').text).toBe('SELECT')
    expect(querySummary('VACUUM').text).toBe('OTHER')
  })
})
