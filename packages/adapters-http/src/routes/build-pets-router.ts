import Router, { type Layer } from '@koa/router'
import type { Problem } from '../problems.js'
import type { HttpContext, HttpMiddleware, RequestState } from '../request-state.js'
import { sendProblem } from '../respond.js'
import type { RouteHandler } from './pet-routes.js'
import { ROUTES, type OperationId } from './route-table.js'

/** The pets router, and the middleware that answers every path under its prefix with it. */
export type PetsRouting = {
  /** The operations, routes named by operation id, each admitting its request first. */
  readonly router: Router<RequestState>
  /** The router, then, for a path no operation answered, admission and 404 or 405 with Allow. */
  readonly serve: HttpMiddleware
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
const NOT_FOUND: Problem = { _tag: 'RouteNotFound' }
const NO_PARAMS: ReadonlyArray<string> = []

type RoutedContext = HttpContext & { readonly matched?: ReadonlyArray<Layer<RequestState>> }

/**
 * The pet operations as a @koa/router Router under `prefix`, their paths from the route table
 * (which the OpenAPI document is built from). Every path under the prefix goes through `admit`
 * (authentication, limits) before anything else, so a caller without a valid key learns nothing
 * about routes; then an operation, or 404, or 405 with Allow for a path that only other methods
 * have. As @koa/router does by default: static segments match without regard to case, a parameter
 * is one non-empty segment, percent-decoded when valid, a trailing slash is allowed, GET answers
 * HEAD.
 */
export const buildPetsRouter = (
  prefix: string,
  admit: HttpMiddleware,
  handlers: Readonly<Record<OperationId, RouteHandler>>,
): PetsRouting => {
  const router = new Router<RequestState>({ prefix })
  // `admit` is each route's first middleware, not `router.use(admit)`: a router's own middleware
  // matches its prefix with regard to case, and its routes do not, so /V1/pets would skip it.
  for (const { operationId, method, path } of ROUTES) {
    const template = `${prefix}${path}`
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((found) => found[1] ?? '')
    const handle = handlers[operationId]
    router[method](operationId, path.replace(/\{(\w+)\}/g, ':$1'), admit, (ctx) => {
      ctx.state.route = template
      ctx.state.operation = operationId
      return handle(ctx, names.length === 0 ? NO_PARAMS : names.map((name) => ctx.params[name] ?? ''))
    })
  }

  // The routes whose path matched (the router's `ctx.matched`, which may hold a host router's too).
  const ours: ReadonlySet<unknown> = new Set(router.stack)
  const notRouted = (ctx: RoutedContext): Problem => {
    const matched = (ctx.matched ?? []).filter((layer) => ours.has(layer))
    const allow = [...new Set(matched.flatMap((layer) => layer.methods))].sort(
      (a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b),
    )
    return allow.length === 0 ? NOT_FOUND : { _tag: 'MethodNotAllowed', allow }
  }
  const routes = router.routes()
  return {
    router,
    // The router gives the context its `params` and `router` itself, before a route sees it.
    serve: (ctx) =>
      routes(ctx as Parameters<typeof routes>[0], () =>
        admit(ctx, async () => sendProblem(ctx, notRouted(ctx))),
      ),
  }
}
