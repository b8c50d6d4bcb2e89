import Router from '@koa/router'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../src/routes/dispatch.js'
import { ROUTES } from '../src/routes/route-table.js'

// @koa/router, set up as the service used it before its dispatch was compiled but matching exactly (strict:
// no trailing slash; sensitive: case counts), is the oracle.
const router = new Router({ prefix: '/v1', strict: true, sensitive: true })
for (const route of ROUTES)
  router[route.method](route.operationId, route.path.replace(/\{(\w+)\}/g, ':$1'), () => {})
const oracle = (path: string, method: string) => {
  const matched = router.match(path, method)
  const layer = matched.pathAndMethod.find((l) => l.opts.name !== undefined)
  const allow = [...new Set(matched.path.flatMap((l) => l.methods))].sort()
  if (layer === undefined) return { operation: undefined, allow, params: [] as Array<string> }
  const captured = layer.captures(path)
  return {
    operation: layer.name,
    allow,
    params: Object.values(layer.params(path, captured, {})) as Array<string>,
  }
}

const match = compileRoutes('/v1', ROUTES, (operationId) => operationId)
const ours = (path: string, method: string) => {
  const found = match(path)
  if (found === undefined) return { operation: undefined, allow: [], params: [] }
  return {
    operation: found.route.methods.get(method)?.handle,
    allow: [...found.route.methods.keys()].sort(),
    params: found.route.methods.has(method) ? [...found.params] : [],
  }
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
  ),
  fc.string({ unit: fc.constantFrom('a', 'P', '1', '%', '2', 'F', '-', '.', '~', 'é'), maxLength: 6 }),
)
const path = fc
  .array(segment, { minLength: 0, maxLength: 4 })
  .chain((segments) =>
    fc.constantFrom('/v1', '/V1', '/v1/', '/v2').map((prefix) => `${prefix}/${segments.join('/')}`),
  )
  .filter((p) => p.startsWith('/v1/') || p === '/v1')
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS')

describe('the compiled dispatch', () => {
  it('routes every path and method as @koa/router did: operation, allowed methods, decoded parameters', () => {
    fc.assert(
      fc.property(path, method, (p, m) => {
        expect(ours(p, m)).toEqual(oracle(p, m))
      }),
      { numRuns: 5_000 },
    )
  })

  it.each([
    ['/v1/pets', 'GET', 'listPets'],
    ['/v1/pets', 'POST', 'createPet'],
    ['/v1/pets/7', 'HEAD', 'getPet'],
    ['/v1/store/orders', 'GET', 'listOrders'],
  ])('finds %s %s', (p, m, operation) => {
    expect(ours(p, m).operation).toBe(operation)
  })

  // CONTRACT: any path under /v1 that the interface does not name is unknown: 404, not an operation.
  it.each(['/v1/pets/', '/v1/PETS', '/v1/Pets/7', '/v1/pets/7/', '/v1/store/orders/', '/v1/Store/orders'])(
    'finds nothing at %s',
    (p) => {
      expect(match(p)).toBeUndefined()
    },
  )

  it.each(['/v1/pets//', '/v1/pets/1/2', '/v1//pets', '/v1/pets/', '/v1'])(
    'agrees with @koa/router on the edge %s',
    (p) => {
      for (const m of ['GET', 'POST']) expect(ours(p, m)).toEqual(oracle(p, m))
    },
  )
})
