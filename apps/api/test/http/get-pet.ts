import { beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectValidationFailed } from './expect-error.js'
import { PUBLIC_BASE_URL, useService, type StartService } from './harness.js'
import { addPet, type WirePet } from './pets-client.js'

const SUNSET = '2030-12-05T00:00:00Z'

/** Fails unless a response carries the deprecation headers of GET /v1/pets/{petId}. */
const expectDeprecationHeaders = (res: Response) => {
  expect(res.headers.get('deprecation')).toBe('@1767225600')
  expect(res.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
  expect(res.headers.get('link')).toBe(`<${PUBLIC_BASE_URL}/pets>; rel="successor-version"`)
}

/** CONTRACT: GET /v1/pets/{petId} is deprecated, says so on every answer, and is gone from its sunset. */
export const describeGetPet = (start: StartService) =>
  describe('GET /v1/pets/{petId}', () => {
    describe('before the sunset', () => {
      const svc = useService(start)
      let pet: WirePet
      beforeAll(async () => {
        pet = await addPet(svc(), { name: 'Rex', categoryId: 4, status: 'sold' })
      })

      it('answers 200 with exactly the pet and the deprecation headers', async () => {
        const res = await svc().authed(`/v1/pets/${pet.id}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toMatch(/^application\/json\s*(;|$)/)
        const body = (await res.json()) as WirePet
        expect(Object.keys(body).sort()).toEqual(['categoryId', 'id', 'name', 'status'])
        expect(body).toEqual(pet)
        expectDeprecationHeaders(res)
      })

      it('answers 404 not_found with the deprecation headers for a valid id without a pet', async () => {
        for (const id of [pet.id + 1000, 9007199254740991]) {
          const res = await svc().authed(`/v1/pets/${id}`)
          await expectError(res, 404, 'not_found')
          expectDeprecationHeaders(res)
        }
      })

      it.each(['0', '-1', 'abc', '1.5', '1e3', '9007199254740992', '99999999999999999999999'])(
        'answers 400 validation_failed with the deprecation headers for petId %s',
        async (petId) => {
          const res = await svc().authed(`/v1/pets/${petId}`)
          expectDeprecationHeaders(res)
          await expectValidationFailed(res, 'petId')
        },
      )
    })

    describe('around the sunset', () => {
      const svc = useService(start, { each: true })
      const get = (id: number | string) => svc().authed(`/v1/pets/${id}`)

      it('still answers 200 one millisecond before 2030-12-05T00:00:00Z', async () => {
        const pet = await addPet(svc())
        svc().clock.set('2030-12-04T23:59:59.999Z')
        const res = await get(pet.id)
        expect(res.status).toBe(200)
        expect(await res.json()).toEqual(pet)
        expectDeprecationHeaders(res)
      })

      it.each([SUNSET, '2030-12-05T00:00:00.001Z', '2031-06-01T12:00:00Z'])(
        'answers 410 gone with the deprecation headers at %s, for a pet that exists',
        async (now) => {
          const pet = await addPet(svc())
          svc().clock.set(now)
          const res = await get(pet.id)
          await expectError(res, 410, 'gone')
          expectDeprecationHeaders(res)
        },
      )

      it('answers 410 gone, not 404, for an unknown id from the sunset on', async () => {
        svc().clock.set(SUNSET)
        const res = await get(9007199254740991)
        await expectError(res, 410, 'gone')
        expectDeprecationHeaders(res)
      })

      it('answers 401 without deprecation headers to a request without a key from the sunset on', async () => {
        const pet = await addPet(svc())
        svc().clock.set(SUNSET)
        const res = await svc().request(`/v1/pets/${pet.id}`)
        await expectError(res, 401, 'unauthorized')
        expect(res.headers.get('deprecation')).toBeNull()
        expect(res.headers.get('sunset')).toBeNull()
      })
    })
  })
