import { describe, expect, it } from 'vitest'
import { runLeft } from '@pets/domain/testing'
import { createPetsClient, describeClientError, PetsClientFailure } from '../src/index.js'

const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })

/** A client whose fetch gives `answer` to every request, never retried. */
const clientWhoseFetch = (answer: () => Promise<Response>) =>
  createPetsClient({
    baseUrl: 'http://pets.test:8080/v1',
    apiKey: 'k',
    retry: { maxAttempts: 1 },
    fetch: answer,
  })

const thrownByAllPets = async (client: ReturnType<typeof createPetsClient>): Promise<unknown> => {
  try {
    for await (const _ of client.allPets()) void _
  } catch (error) {
    return error
  }
  throw new Error('allPets ended without a failure')
}

describe('the failures the client throws and describes', () => {
  it('gives a PetsClientFailure the error fetch threw as its standard cause', async () => {
    const failure = await thrownByAllPets(clientWhoseFetch(() => Promise.reject(refused)))
    expect(failure).toBeInstanceOf(PetsClientFailure)
    expect(failure).toHaveProperty('cause', refused)
    expect((failure as PetsClientFailure).error).toMatchObject({ _tag: 'NetworkFailure', cause: refused })
  })

  it('gives a PetsClientFailure no cause when the service answered: the typed error is all there is', async () => {
    const body = JSON.stringify({ code: 'internal_error', message: 'oops', status: 500 })
    const failure = await thrownByAllPets(clientWhoseFetch(async () => new Response(body, { status: 500 })))
    expect(failure).toBeInstanceOf(PetsClientFailure)
    expect('cause' in (failure as object)).toBe(false)
  })

  it('names the origin that did not answer, where an attempt was sent', async () => {
    const error = await runLeft(clientWhoseFetch(() => Promise.reject(refused)).listPets())
    expect(error).toMatchObject({ _tag: 'NetworkFailure', origin: 'http://pets.test:8080' })
    expect(describeClientError(error)).toBe(
      'no response from the animal store at http://pets.test:8080: fetch failed: ECONNREFUSED',
    )
  })

  it('quotes the request id of an answer, which the README tells callers to give the operators', async () => {
    const answered = clientWhoseFetch(async () =>
      Response.json(
        { code: 'internal_error', message: 'Something went wrong on our side.', status: 500 },
        { status: 500, headers: { 'X-Request-Id': 'req-42' } },
      ),
    )
    const error = await runLeft(answered.listPets())
    expect(describeClientError(error)).toBe(
      'the animal store answered 500 internal_error: Something went wrong on our side. (request id req-42)',
    )
    expect(new PetsClientFailure(error).message).toContain('(request id req-42)')
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
})
