import { describe, expect, it } from 'vitest'
import type { TestService } from '../support/test-service.js'
import { useService, type StartService } from './harness.js'
import { addPet, addPets, idsOf, listPage, nextPath, type WirePet } from './pets-client.js'

const MAX_PAGES = 200

// Follows next links from `path`; `between` runs after each page that has a next link, and
// `during` alongside each page fetch.
const walk = async (
  svc: TestService,
  path: string,
  hooks: { between?: (page: number) => Promise<unknown>; during?: (page: number) => Promise<unknown> } = {},
) => {
  const seen: Array<WirePet> = []
  let next: string | undefined = path
  for (let page = 0; next !== undefined; page++) {
    if (page === MAX_PAGES) throw new Error(`the walk did not end within ${MAX_PAGES} pages`)
    const [{ res, pets }] = await Promise.all([listPage(svc, next), hooks.during?.(page)])
    seen.push(...pets)
    next = nextPath(res)
    if (next !== undefined) await hooks.between?.(page)
  }
  return seen
}

const expectEachOnce = (seen: ReadonlyArray<WirePet>, expected: ReadonlyArray<WirePet>) => {
  const ids = idsOf(seen)
  expect(new Set(ids).size, 'no pet twice').toBe(ids.length)
  for (const pet of expected)
    expect(
      ids.filter((id) => id === pet.id),
      `pet ${pet.id} once`,
    ).toHaveLength(1)
}

/** CONTRACT: walking `next` links returns every matching pet exactly once, also while pets are added. */
export const describeListPaging = (start: StartService) =>
  describe('GET /v1/pets paging by next links', () => {
    const svc = useService(start, { each: true })

    it.each([
      { what: 'limit=3', query: 'limit=3', matches: () => true },
      {
        what: 'limit=2&status=pending',
        query: 'limit=2&status=pending',
        matches: (pet: WirePet) => pet.status === 'pending',
      },
      { what: 'the default limit', query: '', matches: () => true },
    ])(
      'walking next links with $what returns every matching pet once, in id order',
      async ({ query, matches }) => {
        const all = await addPets(svc(), 45)
        const seen = await walk(svc(), `/v1/pets?${query}`)
        expect(seen).toEqual(all.filter(matches))
      },
    )

    it('walking returns every pet once while pets are added between pages', async () => {
      const before = await addPets(svc(), 10)
      const addedBetween: Array<WirePet> = []
      const seen = await walk(svc(), '/v1/pets?limit=3', {
        between: async (page) => {
          if (page < 3) addedBetween.push(await addPet(svc(), { name: `between ${page}` }))
        },
      })
      expect(addedBetween).toHaveLength(3)
      expectEachOnce(seen, [...before, ...addedBetween])
      expect(idsOf(seen)).toEqual([...idsOf(seen)].sort((a, b) => a - b))
    })

    it.each([
      { query: 'limit=3', status: undefined },
      { query: 'limit=2&status=sold', status: 'sold' as const },
    ])(
      'walking next links with $query returns every pet that existed at the start once while others are added concurrently',
      async ({ query, status }) => {
        const matches = (pet: WirePet) => status === undefined || pet.status === status
        const before = (await addPets(svc(), 15)).filter(matches)
        const addConcurrently = async (page: number) => {
          if (page < 4)
            await Promise.all(
              [1, 2, 3].map((i) =>
                addPet(svc(), { name: `during ${page}.${i}`, status: status ?? 'pending' }),
              ),
            )
        }
        const seen = await walk(svc(), `/v1/pets?${query}`, { during: addConcurrently })
        expectEachOnce(seen, before)
        expect(seen.every(matches)).toBe(true)
      },
    )
  })
