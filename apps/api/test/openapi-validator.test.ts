import { buildOpenApiDocument } from '@pets/adapters-http'
import { describe, expect, it } from 'vitest'
import { createResponseValidator, type Exchange } from './support/openapi-validator.js'

const validator = createResponseValidator(
  buildOpenApiDocument({ servers: [{ url: 'https://api.example.com/v1' }] }),
)

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' }
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' }
const DEPRECATION = {
  deprecation: '@1767225600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '<https://api.example.com/v1/pets>; rel="successor-version"',
}

const exchange = (
  method: string,
  target: string,
  status: number,
  headers: Record<string, string>,
  body: unknown = undefined,
): Exchange => ({
  method,
  target,
  status,
  headers: new Headers(headers),
  body: body === undefined ? '' : JSON.stringify(body),
})
const error = (status: number, code: string) => ({ code, message: 'Something was wrong.', status })

describe('the response validator', () => {
  it.each([
    ['a page of pets', exchange('GET', '/v1/pets?limit=1', 200, JSON_TYPE, [PET])],
    [
      'a page with a next link',
      exchange(
        'GET',
        '/v1/pets',
        200,
        { ...JSON_TYPE, link: '<https://api.example.com/v1/pets?limit=1&after=1>; rel="next"' },
        [PET],
      ),
    ],
    [
      'a pet added',
      exchange('POST', '/v1/pets', 201, { ...JSON_TYPE, location: 'https://api.example.com/v1/pets/1' }, PET),
    ],
    ['a pet found', exchange('GET', '/v1/pets/1', 200, { ...JSON_TYPE, ...DEPRECATION }, PET)],
    ['the answer to HEAD, without a body', exchange('HEAD', '/v1/pets', 200, JSON_TYPE)],
    [
      '401 with its challenge',
      exchange(
        'GET',
        '/v1/pets',
        401,
        { ...JSON_TYPE, 'www-authenticate': 'Bearer realm="animal-store"' },
        error(401, 'unauthorized'),
      ),
    ],
    [
      '405 for a method that is no operation',
      exchange(
        'DELETE',
        '/v1/pets',
        405,
        { ...JSON_TYPE, allow: 'GET, HEAD, POST' },
        error(405, 'method_not_allowed'),
      ),
    ],
    [
      '503 with Retry-After',
      exchange(
        'GET',
        '/v1/store/orders',
        503,
        { ...JSON_TYPE, 'retry-after': '5' },
        error(503, 'unavailable'),
      ),
    ],
  ])('accepts %s', (_, answer) => {
    expect(validator.problemsOf(answer)).toEqual([])
  })

  it.each([
    [
      'an undocumented status',
      exchange('GET', '/v1/pets', 418, JSON_TYPE, error(418, 'teapot')),
      'the status 418 is not documented',
    ],
    [
      'an undocumented header',
      exchange('GET', '/v1/pets', 200, { ...JSON_TYPE, 'x-debug': 'on' }, [PET]),
      'the header x-debug is not documented',
    ],
    [
      'an undocumented field of a pet',
      exchange('GET', '/v1/pets/1', 200, { ...JSON_TYPE, ...DEPRECATION }, { ...PET, secret: 'x' }),
      'must NOT have additional properties',
    ],
    [
      'a missing field of a pet',
      exchange(
        'POST',
        '/v1/pets',
        201,
        { ...JSON_TYPE, location: 'https://api.example.com/v1/pets/1' },
        {
          id: 1,
          name: 'Rex',
          categoryId: 1,
        },
      ),
      "must have required property 'status'",
    ],
    [
      'a missing required header',
      exchange('POST', '/v1/pets', 201, JSON_TYPE, PET),
      'the required header Location is missing',
    ],
    [
      'a header value its schema refuses',
      exchange('GET', '/v1/pets/1', 200, { ...JSON_TYPE, ...DEPRECATION, sunset: 'tomorrow' }, PET),
      'the header sunset must be equal to constant',
    ],
    [
      'an error code the status does not have',
      exchange('GET', '/v1/pets/1', 404, { ...JSON_TYPE, ...DEPRECATION }, error(404, 'gone')),
      'the body/code must be equal to one of the allowed values',
    ],
    [
      'a status in the body other than the HTTP status',
      exchange('GET', '/v1/store/orders', 501, JSON_TYPE, error(500, 'not_implemented')),
      'the body/status must be equal to constant',
    ],
    [
      'a success of a method that is no operation',
      exchange('PUT', '/v1/pets', 200, JSON_TYPE, [PET]),
      'the status 200 is not documented',
    ],
    [
      'a media type that is not documented',
      exchange('GET', '/v1/pets', 200, { ...JSON_TYPE, 'content-type': 'text/plain' }, [PET]),
      'the media type text/plain is not documented',
    ],
    [
      'a body in the answer to HEAD',
      exchange('HEAD', '/v1/pets', 200, JSON_TYPE, [PET]),
      'a HEAD answer has a body',
    ],
  ])('refuses %s', (_, answer, problem) => {
    const problems = validator.problemsOf(answer) ?? []
    expect(problems.join('\n')).toContain(problem)
  })

  it('leaves paths the document does not describe unchecked', () => {
    for (const target of ['/healthz', '/openapi.json', '/v1/nothing-here', '/v1/pets/1/owner', '/pets'])
      expect(
        validator.problemsOf(exchange('GET', target, 404, JSON_TYPE, error(404, 'not_found'))),
      ).toBeUndefined()
  })
})
