import type { HttpContext } from './request-state.js'

/** An endpoint outside the API's prefix: it answers GET and HEAD, without a key. */
export type PublicEndpoint = {
  /** How logs and metrics name it: its path, or a template of paths (`/docs/assets/{version}/…`). */
  readonly route: string
  readonly serve: (ctx: HttpContext) => Promise<void> | void
}

export type PublicEndpoints = (path: string) => PublicEndpoint | undefined

export const READ_ONLY: ReadonlyArray<string> = ['GET', 'HEAD']

/** The endpoints of exact paths, in a Map: a path never finds an inherited `constructor` or `__proto__`. */
export const endpointsAt = (endpoints: Iterable<readonly [string, PublicEndpoint]>): PublicEndpoints => {
  const byPath = new Map(endpoints)
  return (path) => byPath.get(path)
}
