import { runLeft } from '@pets/domain/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetsClient, describeClientError } from '../src/index.js'
import { startStubServer } from './support/stub-server.js'

const rex = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
const stubs: Array<Awaited<ReturnType<typeof startStubServer>>> = []
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.close()))
})

/** A service that redirects its first request to another origin, which would answer as the service does. */
const redirecting = async (status: number) => {
  const elsewhere = await startStubServer([
    { status: 200, body: [rex] },
    { status: 201, body: rex },
  ])
  const service = await startStubServer([
    { status, headers: { Location: `${elsewhere.baseUrl}/pets` } },
    { status: 200, body: [] },
  ])
  stubs.push(elsewhere, service)
  const client = createPetsClient({ baseUrl: service.baseUrl, apiKey: 'k', sleep: async () => {} })
  return { client, service, elsewhere, location: `${elsewhere.baseUrl}/pets` }
}

describe('redirects, which the service never answers with', () => {
  it.each([301, 302, 303, 307, 308])(
    'does not follow a %i of a listing nor retry it: an UndecodableResponse naming the Location',
    async (status) => {
      const { client, service, elsewhere, location } = await redirecting(status)
      const error = await runLeft(client.listPets())
      expect(error).toEqual({
        _tag: 'UndecodableResponse',
        status,
        reason: `a ${status} redirect to ${location}, not followed`,
        requestId: undefined,
      })
      expect(describeClientError(error)).toContain(`answered ${status}`)
      expect(service.seen).toHaveLength(1)
      expect(elsewhere.seen).toEqual([])
    },
  )

  it('does not send the body of createPet to where a 307 points', async () => {
    const { client, elsewhere } = await redirecting(307)
    const pet = { name: 'Rex', categoryId: 1 }
    expect(await runLeft(client.createPet(pet, { safeRetries: true }))).toMatchObject({
      _tag: 'UndecodableResponse',
      status: 307,
    })
    expect(elsewhere.seen).toEqual([])
  })

  it('says so when a redirect has no Location', async () => {
    const service = await startStubServer([{ status: 302 }])
    stubs.push(service)
    const client = createPetsClient({ baseUrl: service.baseUrl, apiKey: 'k' })
    expect(await runLeft(client.getPet(1))).toMatchObject({
      reason: 'a 302 redirect without a Location, not followed',
    })
  })

  it('says that an opaque redirect (status 0, hidden by a fetch outside node) is a redirect it does not follow', async () => {
    // A browser's fetch answers a 3xx under `redirect: 'manual'` with an opaque-redirect response: status 0, no
    // headers. Node's Response refuses status 0, so the fake shadows its getters.
    const opaqueRedirect = () =>
      Object.defineProperties(new Response(null), {
        type: { value: 'opaqueredirect' },
        status: { value: 0 },
      })
    let sent = 0
    const fetch = async () => {
      sent++
      return opaqueRedirect()
    }
    const client = createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      sleep: async () => {},
      fetch,
    })
    expect(await runLeft(client.listPets())).toEqual({
      _tag: 'UndecodableResponse',
      status: 0,
      reason:
        'a redirect, which the client does not follow (its status and Location hidden by this fetch: an opaque redirect)',
      requestId: undefined,
    })
    expect(sent).toBe(1)
  })
})
