import type { HttpContext } from './request-state.js'

/** An endpoint outside the API's prefix: it answers GET and HEAD, without a key. */
export type PublicEndpoint = {
  /** How logs and metrics name it; null for the document and the docs page, as for no route. */
  readonly route: string | null
  readonly serve: (ctx: HttpContext) => Promise<void> | void
}

/** Finds the endpoint of a path, looked up by the exact path, or undefined when none has it. */
export type PublicEndpoints = (path: string) => PublicEndpoint | undefined

/** The methods every public endpoint answers. */
export const READ_ONLY: ReadonlyArray<string> = ['GET', 'HEAD']

/**
 * The endpoints of exact paths, in a Map: a path from a request can only find what was put there,
 * never an inherited property such as `constructor` or `__proto__`.
 */
export const endpointsAt = (endpoints: Iterable<readonly [string, PublicEndpoint]>): PublicEndpoints => {
  const byPath = new Map(endpoints)
  return (path) => byPath.get(path)
}
