import Router from '@koa/router'
import Koa, { type Context } from 'koa'
import {
  createKeyCheck,
  decodeId,
  decodeListing,
  decodeNewPet,
  deprecationHeaders,
  encodePet,
  encodePets,
  errorBody,
  HARDENING,
  pastSunset,
  readJsonBody,
  requestIdOf,
  toPage,
} from './contract.js'
import type { PetStore } from './pet-store.js'

// The service's own frameworks, bare: Koa 3 and @koa/router, one middleware before the router,
// the contract by hand as in plain-http.ts; no body parser, logger or metrics.
/** The Koa baseline's app, not listening: the benchmark's ablation drives it in-process too. */
export const createKoaBaseline = (apiKeys: ReadonlyArray<string>, base: string, store: PetStore): Koa => {
  const isKnownKey = createKeyCheck(apiKeys)
  const getPetHeaders = deprecationHeaders(base)

  const send = (ctx: Context, status: number, json: string): void => {
    ctx.status = status
    // Set before the body, so that Koa keeps it instead of guessing text/plain.
    ctx.set('Content-Type', 'application/json; charset=utf-8')
    ctx.body = json
  }

  const fail = (ctx: Context, status: number, code: string, message: string): void =>
    send(ctx, status, errorBody(status, code, message))

  const router = new Router()

  router.get('/healthz', (ctx) => send(ctx, 200, '{"status":"ok"}'))

  router.get('/v1/pets', async (ctx) => {
    const listing = decodeListing(ctx.querystring)
    if (typeof listing === 'string')
      return fail(ctx, 400, 'validation_failed', `Invalid request: ${listing}.`)
    const page = toPage(base, listing, await store.list({ ...listing, limit: listing.limit + 1 }))
    if (page.link !== undefined) ctx.set('Link', page.link)
    send(ctx, 200, encodePets(page.pets))
  })

  router.post('/v1/pets', async (ctx) => {
    const read = await readJsonBody(ctx.req)
    if ('status' in read) return fail(ctx, read.status, read.code, read.message)
    const pet = decodeNewPet(read.body)
    if (typeof pet === 'string') return fail(ctx, 400, 'validation_failed', pet)
    const added = await store.add(pet)
    ctx.set('Location', `${base}/pets/${added.id}`)
    send(ctx, 201, encodePet(added))
  })

  router.get('/v1/pets/:petId', async (ctx) => {
    ctx.set(getPetHeaders)
    const id = decodeId(ctx.params['petId'] ?? '')
    if (id === undefined) return fail(ctx, 400, 'validation_failed', 'Invalid request: petId is invalid.')
    if (pastSunset()) return fail(ctx, 410, 'gone', 'The getPet operation was removed.')
    const pet = await store.get(id)
    if (pet === undefined) return fail(ctx, 404, 'not_found', `No pet has id ${id}.`)
    send(ctx, 200, encodePet(pet))
  })

  const app = new Koa()
  app.use(async (ctx, next) => {
    ctx.set('X-Request-Id', requestIdOf(ctx.get('X-Request-Id') || undefined))
    for (const [name, value] of HARDENING) ctx.set(name, value)
    if (ctx.path.startsWith('/v1') && !isKnownKey(ctx.headers.authorization)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="animal-store"')
      return fail(ctx, 401, 'unauthorized', 'A valid API key is required.')
    }
    try {
      await next()
    } catch {
      return fail(ctx, 503, 'unavailable', 'The pet store cannot be reached right now.')
    }
    if (ctx.body === undefined) fail(ctx, 404, 'not_found', 'No resource is at this path.')
  })
  app.use(router.routes())
  return app
}
