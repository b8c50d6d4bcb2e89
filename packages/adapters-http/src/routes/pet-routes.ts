import { invalidInput, type PetPage, type PetQuery } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { encodePet, encodePets, HEADERS } from '@pets/wire'
import { admitUrlLength } from '../bound-url.js'
import { decodeListPetsQuery, decodePetId, unknownQueryIssues } from '../codecs.js'
import { parseQuery } from '../parse-query.js'
import { queryOf, type HttpContext } from '../request-state.js'
import { sendJson, sendProblem } from '../respond.js'
import type { PetsUseCases } from '../use-cases.js'
import { createPetHandler } from './create-pet.js'
import { deprecationHeaderValues, ROUTES, type RouteSpec } from './route-table.js'

/** What serves one operation: the request, and the parameters of its path in template order. */
export type RouteHandler = (ctx: HttpContext, params: ReadonlyArray<string>) => Promise<void> | void

export type PetRoutesOptions = {
  readonly useCases: PetsUseCases
  readonly publicBaseUrl: string
  readonly bodyTimeoutMs?: number
}

// Listings repeat the same few queries: each query string's decoding is kept, a bounded number of them.
const QUERIES_KEPT = 256
const LONGEST_QUERY_KEPT = 128

const decodeQueryOnce = () => {
  const decoded = new Map<string, ReturnType<typeof decodeListPetsQuery>>()
  return (querystring: string) => {
    const kept = decoded.get(querystring)
    if (kept !== undefined) return kept
    const query = decodeListPetsQuery(parseQuery(querystring))
    if (querystring.length <= LONGEST_QUERY_KEPT) {
      if (decoded.size >= QUERIES_KEPT) decoded.clear()
      decoded.set(querystring, query)
    }
    return query
  }
}

const nextLink = (base: string, query: PetQuery, page: PetPage): string | undefined =>
  O.isNone(page.next)
    ? undefined
    : `<${base}/pets?limit=${query.limit}${query.status === undefined ? '' : `&status=${query.status}`}` +
      `&after=${page.next.value}>; rel="next"`

/**
 * The headers every answer of an operation carries once its caller is authenticated, by operation id
 * (CONTRACT: a deprecated operation's `Deprecation`, `Sunset` and successor `Link`, on its 429 and 400s too).
 */
export const headersOfEveryAnswer = (
  publicBaseUrl: string,
): ReadonlyMap<string, Readonly<Record<string, string>>> =>
  new Map(
    ROUTES.flatMap((route: RouteSpec) => {
      if (route.deprecation === undefined) return []
      const successor = ROUTES.find((r) => r.operationId === route.deprecation?.successor)
      if (successor === undefined)
        throw new Error(`${route.operationId}'s successor is not in the route table`)
      return [
        [route.operationId, deprecationHeaderValues(route.deprecation, `${publicBaseUrl}${successor.path}`)],
      ]
    }),
  )

/** The handlers of the pet operations, keyed by operation id; everything they share is made here, once. */
export const petRoutes = ({
  useCases,
  publicBaseUrl,
  bodyTimeoutMs,
}: PetRoutesOptions): Readonly<Record<'listPets' | 'createPet' | 'getPet' | 'listOrders', RouteHandler>> => {
  const decodeQuery = decodeQueryOnce()

  return {
    listPets: async (ctx) => {
      if (!admitUrlLength(ctx)) return
      const query = decodeQuery(queryOf(ctx))
      if (E.isLeft(query)) return sendProblem(ctx, query.left)
      const page = await useCases.listPets(query.right)()
      if (E.isLeft(page)) return sendProblem(ctx, page.left)
      const link = nextLink(publicBaseUrl, query.right, page.right)
      if (link !== undefined) ctx.set(HEADERS.link, link)
      sendJson(ctx, 200, encodePets(page.right.pets))
    },

    createPet: createPetHandler({
      useCases,
      publicBaseUrl,
      ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
    }),

    // Its deprecation headers are set by preparePetsApi, on every answer after authentication.
    getPet: async (ctx, [petId = '']) => {
      if (!admitUrlLength(ctx)) return
      const id = decodePetId(petId)
      const unknown = unknownQueryIssues(queryOf(ctx))
      if (E.isLeft(id) || unknown.length > 0)
        return sendProblem(ctx, invalidInput([...(E.isLeft(id) ? id.left.issues : []), ...unknown]))
      const pet = await useCases.getPet(id.right)()
      if (E.isLeft(pet)) return sendProblem(ctx, pet.left)
      sendJson(ctx, 200, encodePet(pet.right))
    },

    // 501 whatever its URL: it comes before any 400 in CONTRACT's order.
    listOrders: (ctx) => sendProblem(ctx, { _tag: 'NotImplemented' }),
  }
}
