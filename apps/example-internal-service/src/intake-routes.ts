import { bodyParser } from '@koa/bodyparser'
import Router, { type RouterMiddleware } from '@koa/router'
import {
  decodeNewPet,
  MAX_PAGE_LIMIT,
  PET_STATUSES,
  type PageCursor,
  type PageLimit,
  type PetStatus,
  type StoreUnavailable,
} from '@pets/domain'
import type { PetsUseCases } from '@pets/adapters-http'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'

/** How many pets have each status, counted page by page through the listPets use case. */
const countByStatus = async (
  listPets: PetsUseCases['listPets'],
): Promise<E.Either<StoreUnavailable, Record<PetStatus, number>>> => {
  const counts = { available: 0, pending: 0, sold: 0 }
  let after: PageCursor | undefined
  do {
    const page = await listPets({
      limit: MAX_PAGE_LIMIT as PageLimit,
      ...(after === undefined ? {} : { after }),
    })()
    if (E.isLeft(page)) return page
    for (const pet of page.right.pets) counts[pet.status]++
    after = O.toUndefined(page.right.next)
  } while (after !== undefined)
  return E.right(counts)
}

/**
 * The service's own routes, in its own style, calling the domain's use cases in-process: an
 * intake desk where new animals arrive (pending until a vet has seen them), and a summary.
 */
// A 5xx of http-errors is not exposed unless asked: this one says what the caller may wait out.
const UNREACHABLE = 'the catalogue cannot be reached'

export const intakeRoutes = (useCases: PetsUseCases): Router => {
  const router = new Router()
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  // The parser reads JSON alone and hands the route `{}` for any other body (or none): refused first.
  const jsonOnly: RouterMiddleware = (ctx, next) =>
    ctx.is('application/json')
      ? next()
      : ctx.throw(415, 'the body must be JSON (Content-Type: application/json)')
  // The body parser is mounted on this route only: a global one would read the request bodies of
  // the mounted pets router before it could.
  router.post('/intake', jsonOnly, bodyParser({ enableTypes: ['json'], jsonLimit: '16kb' }), async (ctx) => {
    // The parser takes a JSON array too (its strict mode refuses only what is neither object nor array):
    // spread, it would be read as a pet whose fields are "0", "1", ….
    const body: unknown = ctx.request.body
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return ctx.throw(400, 'the body must be a JSON object (an array is none)')
    const input = decodeNewPet({ ...body, status: 'pending' })
    if (E.isLeft(input)) {
      ctx.status = 422
      ctx.body = { accepted: false, problems: input.left.issues }
      return
    }
    const pet = await useCases.createPet({ pet: input.right })()
    if (E.isLeft(pet)) return ctx.throw(503, UNREACHABLE, { expose: true })
    ctx.status = 201
    ctx.body = { accepted: true, pet: pet.right }
  })
  router.get('/intake/summary', async (ctx) => {
    const counts = await countByStatus(useCases.listPets)
    if (E.isLeft(counts)) return ctx.throw(503, UNREACHABLE, { expose: true })
    ctx.body = Object.fromEntries(PET_STATUSES.map((status) => [status, counts.right[status]]))
  })
  return router
}
