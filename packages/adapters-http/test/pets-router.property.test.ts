import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sendProblem } from '../src/respond.js'
import { ROUTES } from '../src/routes/route-table.js'
import { routeInMemory } from './support/route-in-memory.js'

// The routing rules of the interface, stated plainly: below `/v1`, one trailing slash dropped, a
// path fits a route when it has as many segments, each static one equal without regard to case
// and each parameter one non-empty segment, percent-decoded when that is valid. GET answers HEAD.
// A path that fits no route is 404; a path that fits only other methods' routes is 405 with Allow.
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
const isParam = (segment: string) => /^\{\w+\}$/.test(segment)
const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
const expected = (path: string, method: string) => {
  let below = path.slice('/v1'.length)
  if (below.length > 1 && below.endsWith('/')) below = below.slice(0, -1)
  const segments = below.split('/').slice(1)
  const fitting = ROUTES.filter((route) => {
    const template = route.path.split('/').slice(1)
    return (
      template.length === segments.length &&
      template.every((t, i) =>
        isParam(t) ? segments[i] !== '' : t.toLowerCase() === segments[i]!.toLowerCase(),
      )
    )
  })
  const methodsOf = (route: (typeof ROUTES)[number]) =>
    route.method === 'get' ? ['GET', 'HEAD'] : [route.method.toUpperCase()]
  const served = fitting.find((route) => methodsOf(route).includes(method))
  if (served !== undefined) {
    const template = served.path.split('/').slice(1)
    return {
      operation: served.operationId,
      route: `/v1${served.path}`,
      params: segments.filter((_, i) => isParam(template[i]!)).map(decoded),
    }
  }
  const allow = [...new Set(fitting.flatMap(methodsOf))].sort(
    (a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b),
  )
  return allow.length === 0 ? { status: 404 } : { status: 405, allow: allow.join(', ') }
}

const route = routeInMemory()
const observed = async (path: string, method: string) => {
  const r = await route(path, method)
  expect(r.admitted).toBe(true)
  expect(r.passedOn).toBe(false)
  return r.operation === undefined
    ? { status: r.status, ...(r.allow === undefined ? {} : { allow: r.allow }) }
    : { operation: r.operation, route: r.route, params: r.params }
}

const segment = fc.oneof(
  fc.constantFrom(
    'pets',
    'PETS',
    'Pets',
    'store',
    'orders',
    'ORDERS',
    '',
    '1',
    '42',
    '%31',
    '%zz',
    '%2F',
    'a%20b',
    '%C3%A9',
  ),
  fc.string({ unit: fc.constantFrom('a', 'P', '1', '%', '2', 'F', '-', '.', '~'), maxLength: 6 }),
)
// Under /v1: `/v1/` and then segments, or `/v1//` and then segments.
const path = fc
  .array(segment, { minLength: 0, maxLength: 4 })
  .chain((segments) => fc.constantFrom('/v1', '/v1/').map((prefix) => `${prefix}/${segments.join('/')}`))
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND')

describe('the pets router (@koa/router)', () => {
  it('routes every path and method under /v1 as the rules say: operation, parameters, 404, 405 with Allow', async () => {
    await fc.assert(
      fc.asyncProperty(path, method, async (p, m) => {
        expect(await observed(p, m)).toEqual(expected(p, m))
      }),
      { numRuns: 5_000 },
    )
  })

  it.each([
    ['/v1/pets', 'GET', 'listPets'],
    ['/v1/pets', 'HEAD', 'listPets'],
    ['/v1/pets/', 'POST', 'createPet'],
    ['/v1/PETS/7', 'HEAD', 'getPet'],
    ['/v1/store/orders', 'GET', 'listOrders'],
  ])('finds %s %s', async (p, m, operation) => {
    expect((await route(p, m)).operation).toBe(operation)
  })

  it.each([
    ['/v1', 'GET', { status: 404 }],
    ['/v1/', 'GET', { status: 404 }],
    ['/v1//pets', 'GET', { status: 404 }],
    ['/v1/pets//', 'GET', { status: 404 }],
    ['/v1/pets/1/2', 'GET', { status: 404 }],
    ['/v1/pets', 'DELETE', { status: 405, allow: 'GET, HEAD, POST' }],
    ['/v1/pets', 'OPTIONS', { status: 405, allow: 'GET, HEAD, POST' }],
    ['/v1/pets/1', 'POST', { status: 405, allow: 'GET, HEAD' }],
    ['/v1/store/orders/', 'PUT', { status: 405, allow: 'GET, HEAD' }],
  ])('answers %s %s with %j', async (p, m, answer) => {
    expect(await observed(p, m)).toEqual(answer)
  })

  it('hands the parameters over percent-decoded, or as sent when that is not valid', async () => {
    expect((await route('/v1/pets/%31%32')).params).toEqual(['12'])
    expect((await route('/v1/pets/%zz')).params).toEqual(['%zz'])
    expect((await route('/v1/pets/a%2Fb')).params).toEqual(['a/b'])
  })

  it('admits first, whatever the path and method: a request not admitted reaches no route', async () => {
    const refused = (ctx: Parameters<typeof sendProblem>[0]) =>
      sendProblem(ctx, { _tag: 'Unauthorized', keySent: false })
    const served = routeInMemory(refused)
    await fc.assert(
      fc.asyncProperty(path, method, async (p, m) => {
        expect(await served(p, m)).toMatchObject({ admitted: true, status: 401, operation: undefined })
      }),
      { numRuns: 1_000 },
    )
  })

  it('admits first when its router is mounted alone, whatever the case of the prefix; the rest passes on', async () => {
    const bare = routeInMemory((ctx) => sendProblem(ctx, { _tag: 'Unauthorized', keySent: false }), {
      bare: true,
    })
    // The router's routes match the prefix without regard to case too.
    const anyPath = fc.tuple(path, fc.constantFrom('/v1', '/V1')).map(([p, v]) => `${v}${p.slice(3)}`)
    await fc.assert(
      fc.asyncProperty(anyPath, method, async (p, m) => {
        const r = await bare(p, m)
        expect(r.operation).toBeUndefined()
        expect(r.passedOn ? { admitted: r.admitted } : { admitted: r.admitted, status: r.status }).toEqual(
          r.passedOn ? { admitted: false } : { admitted: true, status: 401 },
        )
      }),
      { numRuns: 1_000 },
    )
    expect(await bare('/V1/PETS', 'GET')).toMatchObject({ admitted: true, status: 401, passedOn: false })
    expect(await bare('/v2/pets', 'GET')).toMatchObject({ admitted: false, passedOn: true })
  })
})
