import type { MethodNotAllowed } from '../problems.js'

/** One method of one path: what serves it, and the operation id that logs and metrics carry. */
export type Endpoint<H> = { readonly operationId: string; readonly handle: H }

export type PathRoute<H> = {
  /** The template with the prefix, in OpenAPI's syntax: `/v1/pets/{petId}`. */
  readonly template: string
  readonly methods: ReadonlyMap<string, Endpoint<H>>
  /** The answer to any other method: 405 with Allow. */
  readonly notAllowed: MethodNotAllowed
}

/** What a request's path and method come to: a route with its parameters, or no route at all. */
export type Match<H> = { readonly route: PathRoute<H>; readonly params: ReadonlyArray<string> } | undefined

type Compiled<H> = {
  readonly route: PathRoute<H>
  readonly segments: ReadonlyArray<string | null>
  readonly whole: Match<H>
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
const NO_PARAMS: ReadonlyArray<string> = []

// As @koa/router does: a parameter that is not valid percent-encoding is kept as sent.
const decodeParam = (text: string): string => {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Compiles routes (paths below `prefix`, OpenAPI syntax) once into a matcher that matches as @koa/router
 * does with `strict` and `sensitive`: exactly, case and trailing slash included (CONTRACT: any other path
 * under /v1 is unknown, 404), held so by a test (ARCHITECTURE.md, 'Made by hand, on purpose', row "dispatcher").
 */
export const compileRoutes = <H>(
  prefix: string,
  routes: ReadonlyArray<{ readonly operationId: string; readonly method: string; readonly path: string }>,
  handlers: (operationId: string) => H,
): ((path: string) => Match<H>) => {
  const byPath = new Map<string, Map<string, Endpoint<H>>>()
  for (const { operationId, method, path } of routes) {
    const methods = byPath.get(path) ?? new Map<string, Endpoint<H>>()
    const endpoint = { operationId, handle: handlers(operationId) }
    const verb = method.toUpperCase()
    methods.set(verb, endpoint)
    if (verb === 'GET') methods.set('HEAD', endpoint)
    byPath.set(path, methods)
  }
  const compiled: ReadonlyArray<Compiled<H>> = [...byPath].map(([path, methods]) => {
    const route: PathRoute<H> = {
      template: `${prefix}${path}`,
      methods,
      notAllowed: {
        _tag: 'MethodNotAllowed',
        allow: [...methods.keys()].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)),
      },
    }
    const segments = path
      .split('/')
      .slice(1)
      .map((segment) => (/^\{\w+\}$/.test(segment) ? null : segment))
    return { route, segments, whole: { route, params: NO_PARAMS } }
  })

  return (path) => {
    if (!path.startsWith(prefix)) return undefined
    const below = path.slice(prefix.length)
    if (below.length === 0 || below[0] !== '/') return undefined
    const segments = below.slice(1).split('/')
    for (const candidate of compiled) {
      if (candidate.segments.length !== segments.length) continue
      let params: Array<string> | undefined
      let matched = true
      for (let i = 0; i < segments.length && matched; i++) {
        const expected = candidate.segments[i]
        const segment = segments[i]!
        if (expected === null) {
          if (segment.length === 0) matched = false
          else (params ??= []).push(decodeParam(segment))
        } else matched = segment === expected
      }
      if (matched) return params === undefined ? candidate.whole : { route: candidate.route, params }
    }
    return undefined
  }
}
