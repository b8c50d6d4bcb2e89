import { beforeAll, describe, expect, it } from 'vitest'
import { PUBLIC_BASE_URL, useService, type StartService } from './harness.js'
import { addPets, idsOf, listPage, STATUSES, type WirePet } from './pets-client.js'

const link = (query: string) => `<${PUBLIC_BASE_URL}/pets?${query}>; rel="next"`

/** CONTRACT: GET /v1/pets lists in id order, a page at a time, with a `next` link while more match. */
export const describeListPets = (start: StartService) =>
  describe('GET /v1/pets', () => {
    describe('on an empty store', () => {
      const svc = useService(start)

      it('answers 200 with an empty JSON array and no Link', async () => {
        const { res, pets } = await listPage(svc(), '/v1/pets')
        expect(res.headers.get('content-type')).toMatch(/^application\/json\s*(;|$)/)
        expect(pets).toEqual([])
        expect(res.headers.get('link')).toBeNull()
      })
    })

    describe('over 25 pets', () => {
      const svc = useService(start)
      let all: ReadonlyArray<WirePet> = []
      const withStatus = (status: string) => all.filter((pet) => pet.status === status)
      beforeAll(async () => {
        all = await addPets(svc(), 25)
      })

      it('lists pets in ascending id order, each exactly as added', async () => {
        const { pets } = await listPage(svc(), '/v1/pets?limit=100')
        expect(pets).toEqual(all)
        expect(idsOf(pets)).toEqual([...idsOf(pets)].sort((a, b) => a - b))
      })

      it('returns 20 pets by default, with a next link carrying limit=20', async () => {
        const { res, pets } = await listPage(svc(), '/v1/pets')
        expect(pets).toEqual(all.slice(0, 20))
        expect(res.headers.get('link')).toBe(link(`limit=20&after=${all[19]!.id}`))
      })

      it('accepts limit=1 and returns one pet with a next link', async () => {
        const { res, pets } = await listPage(svc(), '/v1/pets?limit=1')
        expect(pets).toEqual(all.slice(0, 1))
        expect(res.headers.get('link')).toBe(link(`limit=1&after=${all[0]!.id}`))
      })

      it('accepts limit=100 and returns every pet without a next link', async () => {
        const { res, pets } = await listPage(svc(), '/v1/pets?limit=100')
        expect(pets).toHaveLength(25)
        expect(res.headers.get('link')).toBeNull()
      })

      it('gives no next link when the page holds exactly the last matching pets', async () => {
        const { res, pets } = await listPage(svc(), `/v1/pets?limit=5&after=${all[19]!.id}`)
        expect(pets).toEqual(all.slice(20))
        expect(res.headers.get('link')).toBeNull()
      })

      it.each(STATUSES)('with status=%s lists exactly the pets of that status', async (status) => {
        const { pets } = await listPage(svc(), `/v1/pets?status=${status}&limit=100`)
        expect(pets).toEqual(withStatus(status))
        expect(pets.length).toBeGreaterThan(0)
      })

      it('puts status in the next link only when the request had it', async () => {
        const sold = withStatus('sold')
        const filtered = await listPage(svc(), '/v1/pets?status=sold&limit=3')
        expect(filtered.res.headers.get('link')).toBe(link(`limit=3&status=sold&after=${sold[2]!.id}`))
        const unfiltered = await listPage(svc(), '/v1/pets?limit=3')
        expect(unfiltered.res.headers.get('link')).toBe(link(`limit=3&after=${all[2]!.id}`))
      })

      it('gives no next link when only pets of another status follow', async () => {
        const sold = withStatus('sold')
        // The last pet is available, so unfiltered pets remain after the last sold one.
        expect(all[all.length - 1]!.status).not.toBe('sold')
        const { res, pets } = await listPage(svc(), `/v1/pets?status=sold&limit=${sold.length}`)
        expect(pets).toEqual(sold)
        expect(res.headers.get('link')).toBeNull()
      })

      it('returns only pets with an id above `after`', async () => {
        const { pets } = await listPage(svc(), `/v1/pets?after=${all[9]!.id}&limit=100`)
        expect(pets).toEqual(all.slice(10))
      })

      it('accepts after=0 as the start of the list', async () => {
        const { pets } = await listPage(svc(), '/v1/pets?after=0&limit=100')
        expect(pets).toEqual(all)
      })

      it('accepts after=9007199254740991 and returns no pets', async () => {
        const { res, pets } = await listPage(svc(), '/v1/pets?after=9007199254740991')
        expect(pets).toEqual([])
        expect(res.headers.get('link')).toBeNull()
      })

      it('combines limit, status and after, naming all three in the next link', async () => {
        const pending = withStatus('pending')
        const { res, pets } = await listPage(svc(), `/v1/pets?limit=2&status=pending&after=${pending[0]!.id}`)
        expect(pets).toEqual(pending.slice(1, 3))
        expect(res.headers.get('link')).toBe(link(`limit=2&status=pending&after=${pending[2]!.id}`))
      })

      it('answers HEAD /v1/pets with 200 and no body', async () => {
        const res = await svc().authed('/v1/pets', { method: 'HEAD' })
        expect(res.status).toBe(200)
        expect(await res.text()).toBe('')
      })
    })
  })
