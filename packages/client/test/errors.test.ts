import { toErrorResponse, type Problem } from '@pets/adapters-http'
import { invalidInput, type PetId } from '@pets/domain'
import { run, runLeft } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { createPetsClient, ERROR_TAGS, ERRORS, PetsClientFailure, type ErrorCode } from '../src/index.js'

/** A client whose every request gets this one response, never retried. */
const answering = (status: number, body: string, headers: Record<string, string> = {}) =>
  createPetsClient({
    baseUrl: 'http://pets.test/v1',
    apiKey: 'k',
    retry: { maxAttempts: 1 },
    fetch: async () =>
      new Response(body, { status, headers: { 'Content-Type': 'application/json', ...headers } }),
  })

const codes = Object.keys(ERRORS) as ReadonlyArray<ErrorCode>

describe('the typed errors of the client', () => {
  it.each(codes)('turns an Error body with code %s into its own typed error', async (code) => {
    const status = ERRORS[code].status
    const client = answering(status, JSON.stringify({ code, message: 'what went wrong', status }), {
      'X-Request-Id': 'req-1',
    })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: ERROR_TAGS[code],
      code,
      status,
      message: 'what went wrong',
      requestId: 'req-1',
    })
  })

  it('gives RateLimited and Unavailable the seconds of Retry-After', async () => {
    const limited = answering(
      429,
      JSON.stringify({ code: 'rate_limited', message: 'slow down', status: 429 }),
      {
        'Retry-After': '7',
      },
    )
    expect(await runLeft(limited.listPets())).toMatchObject({ _tag: 'RateLimited', retryAfterSeconds: 7 })
    const down = answering(503, JSON.stringify({ code: 'unavailable', message: 'down', status: 503 }))
    expect(await runLeft(down.listPets())).toMatchObject({
      _tag: 'Unavailable',
      retryAfterSeconds: undefined,
    })
  })

  it('gives MethodNotAllowed the methods of the Allow header', async () => {
    const client = answering(
      405,
      JSON.stringify({ code: 'method_not_allowed', message: 'no', status: 405 }),
      {
        Allow: 'GET, HEAD',
      },
    )
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'MethodNotAllowed',
      allow: ['GET', 'HEAD'],
    })
  })

  it('answers UndecodableResponse for an Error body whose status is not the HTTP status', async () => {
    const client = answering(400, JSON.stringify({ code: 'validation_failed', message: 'x', status: 404 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 400 })
  })

  it('answers UndecodableResponse for a code the contract pairs with another status', async () => {
    const client = answering(404, JSON.stringify({ code: 'gone', message: 'x', status: 404 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 404 })
  })

  it('answers UndecodableResponse for a code the contract does not have', async () => {
    const client = answering(418, JSON.stringify({ code: 'teapot', message: 'x', status: 418 }))
    expect(await runLeft(client.listPets())).toMatchObject({ _tag: 'UndecodableResponse', status: 418 })
  })

  it("answers UndecodableResponse for a proxy's HTML error page", async () => {
    const client = answering(502, '<html>Bad Gateway</html>', { 'Content-Type': 'text/html' })
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({ _tag: 'UndecodableResponse', status: 502 })
    expect(error._tag === 'UndecodableResponse' && error.reason).toContain('text/html')
  })

  it('answers UndecodableResponse naming the field of a pet that breaks the domain invariants', async () => {
    const client = answering(200, JSON.stringify([{ id: 1, name: '', categoryId: 1, status: 'available' }]))
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({ _tag: 'UndecodableResponse', status: 200 })
    expect(error._tag === 'UndecodableResponse' && error.reason).toMatch(/^0\.name /)
  })

  it('answers UndecodableResponse for a success status other than the operation’s', async () => {
    const client = answering(200, JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'available' }))
    expect(await runLeft(client.createPet({ name: 'Rex', categoryId: 1 }))).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'the status is 200, not 201',
    })
  })

  it('drops keys of a pet that the contract does not have', async () => {
    const client = answering(
      201,
      JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'sold', colour: 'red' }),
    )
    expect(await run(client.createPet({ name: 'Rex', categoryId: 1 }))).toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'sold',
    })
  })

  it('answers UndecodableResponse for a next link that points at the same page, which would never end', async () => {
    const client = answering(200, '[]', { Link: '<http://pets.test/v1/pets>; rel="next"' })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'the next link is this page',
    })
  })

  // A fake service whose pages are `pages[after]`, each linking to `links[after]`.
  const paged = (pages: Record<string, ReadonlyArray<number>>, links: Record<string, string>) =>
    createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      retry: { maxAttempts: 1 },
      fetch: async (input) => {
        const after = new URL(String(input)).searchParams.get('after') ?? '0'
        const pets = (pages[after] ?? []).map((id) => ({ id, name: `p${id}`, categoryId: 1, status: 'sold' }))
        const next = links[after]
        return new Response(JSON.stringify(pets), {
          status: 200,
          headers: {
            'Content-Type': 'application/json',
            ...(next === undefined ? {} : { Link: `<http://pets.test/v1/pets?after=${next}>; rel="next"` }),
          },
        })
      },
    })
  const walk = async (client: ReturnType<typeof paged>) => {
    const ids: Array<number> = []
    try {
      for await (const pet of client.allPets()) ids.push(pet.id)
    } catch (error) {
      return { ids, error }
    }
    return { ids, error: undefined }
  }

  it('ends allPets with a PetsClientFailure when next links go round, or back to pets already given', async () => {
    const round = await walk(paged({ '0': [1], '1': [2], '2': [] }, { '0': '1', '1': '2', '2': '1' }))
    expect(round.ids).toEqual([1, 2])
    expect(round.error).toBeInstanceOf(PetsClientFailure)
    expect((round.error as PetsClientFailure).error).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: expect.stringContaining('leads back to a page already read'),
    })
    const back = await walk(paged({ '0': [1, 2], '2': [2, 3] }, { '0': '2' }))
    expect(back.ids).toEqual([1, 2])
    expect((back.error as PetsClientFailure).error).toMatchObject({
      reason: 'pet 2 came after pet 2: ids must increase',
    })
    expect(await walk(paged({ '0': [1, 2], '2': [3] }, { '0': '2' }))).toEqual({
      ids: [1, 2, 3],
      error: undefined,
    })
  })

  it('answers UndecodableResponse when getPet gets another pet than the one asked for', async () => {
    const client = answering(200, JSON.stringify({ id: 77, name: 'Rex', categoryId: 1, status: 'sold' }))
    expect(await runLeft(client.getPet(1))).toMatchObject({
      _tag: 'UndecodableResponse',
      reason: 'pet 1 was asked for, pet 77 came',
    })
    expect(await run(client.getPet(77))).toMatchObject({ id: 77 })
  })

  it('answers NetworkFailure when no response comes', async () => {
    const client = createPetsClient({
      baseUrl: 'http://pets.test/v1',
      apiKey: 'k',
      retry: { maxAttempts: 1 },
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })
      },
    })
    expect(await runLeft(client.listPets())).toMatchObject({
      _tag: 'NetworkFailure',
      reason: 'fetch failed: ECONNREFUSED',
    })
  })

  it('refuses a base URL that is not an absolute http URL', () => {
    expect(() => createPetsClient({ baseUrl: 'pets.internal/v1', apiKey: 'k' })).toThrow(/baseUrl/)
  })
})

// One example of every problem of the HTTP adapter: a new tag missing here is a type error.
const problems: { readonly [T in Problem['_tag']]: Extract<Problem, { _tag: T }> } = {
  InvalidInput: invalidInput([{ field: 'name', problem: 'is required' }]),
  MalformedRequest: { _tag: 'MalformedRequest', reason: 'The body is not valid JSON.' },
  Unauthorized: { _tag: 'Unauthorized', keySent: true },
  PetNotFound: { _tag: 'PetNotFound', id: 42 as PetId },
  RouteNotFound: { _tag: 'RouteNotFound' },
  MethodNotAllowed: { _tag: 'MethodNotAllowed', allow: ['GET', 'HEAD'] },
  Gone: { _tag: 'Gone', operation: 'getPet', sunset: new Date('2030-12-05T00:00:00Z') },
  PayloadTooLarge: { _tag: 'PayloadTooLarge', limit: 65536 },
  UnsupportedMediaType: { _tag: 'UnsupportedMediaType', reason: 'Send application/json.' },
  InternalError: { _tag: 'InternalError' },
  NotImplemented: { _tag: 'NotImplemented' },
  StoreUnavailable: { _tag: 'StoreUnavailable' },
  IdempotencyKeyInUse: { _tag: 'IdempotencyKeyInUse' },
  IdempotencyKeyReused: { _tag: 'IdempotencyKeyReused' },
  ShuttingDown: { _tag: 'ShuttingDown' },
  RateLimited: { _tag: 'RateLimited', retryAfterSeconds: 7 },
}

describe('the client and the error responses of the HTTP adapter', () => {
  it.each(Object.values(problems))(
    'decodes the answer to $_tag into the typed error of its code',
    async (problem) => {
      const { body, headers } = toErrorResponse(problem)
      const client = answering(body.status, JSON.stringify(body), headers)
      expect(await runLeft(client.listPets())).toMatchObject({
        _tag: ERROR_TAGS[body.code as ErrorCode],
        code: body.code,
        status: body.status,
        message: body.message,
      })
    },
  )
})
