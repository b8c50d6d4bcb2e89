import { GET_PET_SUNSET, type PetPage, type PetQuery } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'
import { decodeListPetsQuery, decodePetId, encodePet, encodePets } from '../codecs.js'
import { sendJson, sendProblem } from '../respond.js'
import type { PetsUseCases } from '../use-cases.js'
import { createPetHandler } from './create-pet.js'

/** CONTRACT: getPet is deprecated since the first release, 2026-01-01T00:00:00Z (RFC 9745). */
export const GET_PET_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z')

/** The ids of the deprecated operations, whose callers are counted per API key. */
export const DEPRECATED_OPERATIONS: ReadonlyArray<string> = ['getPet']

export type PetRoutesOptions = {
  readonly useCases: PetsUseCases
  readonly publicBaseUrl: string
  readonly bodyTimeoutMs?: number
}

const nextLink = (base: string, query: PetQuery, page: PetPage): string | undefined =>
  O.isNone(page.next)
    ? undefined
    : `<${base}/pets?limit=${query.limit}${query.status === undefined ? '' : `&status=${query.status}`}` +
      `&after=${page.next.value}>; rel="next"`

/** The handlers of the pet operations, keyed by operation id. */
export const petRoutes = ({ useCases, publicBaseUrl, bodyTimeoutMs }: PetRoutesOptions) => {
  const deprecationHeaders = {
    Deprecation: `@${GET_PET_DEPRECATED_AT.getTime() / 1000}`,
    Sunset: GET_PET_SUNSET.toUTCString(),
    Link: `<${publicBaseUrl}/pets>; rel="successor-version"`,
  }

  return {
    listPets: async (ctx: Context) => {
      const query = decodeListPetsQuery(ctx.query)
      if (E.isLeft(query)) return sendProblem(ctx, query.left)
      const page = await useCases.listPets(query.right)()
      if (E.isLeft(page)) return sendProblem(ctx, page.left)
      const link = nextLink(publicBaseUrl, query.right, page.right)
      if (link !== undefined) ctx.set('Link', link)
      sendJson(ctx, 200, encodePets(page.right.pets))
    },

    createPet: createPetHandler({
      useCases,
      publicBaseUrl,
      ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
    }),

    getPet: async (ctx: Context & { params: Record<string, string> }) => {
      // CONTRACT: every response of this operation carries the deprecation headers.
      ctx.set(deprecationHeaders)
      const id = decodePetId(ctx.params.petId ?? '')
      if (E.isLeft(id)) return sendProblem(ctx, id.left)
      const pet = await useCases.getPet(id.right)()
      if (E.isLeft(pet)) return sendProblem(ctx, pet.left)
      sendJson(ctx, 200, encodePet(pet.right))
    },

    listOrders: (ctx: Context) => sendProblem(ctx, { _tag: 'NotImplemented' }),
  }
}
