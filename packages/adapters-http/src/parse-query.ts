/** A query string's parameters: a value, or every value of a parameter given more than once. */
export type QueryParameters = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const EMPTY: QueryParameters = Object.freeze(Object.create(null) as QueryParameters)

const add = (parameters: Record<string, string | Array<string>>, name: string, value: string) => {
  const seen = Object.hasOwn(parameters, name) ? parameters[name] : undefined
  const values = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
  // An own property, whatever its name: assigning `__proto__` would set the prototype instead.
  if (name === '__proto__')
    Object.defineProperty(parameters, name, {
      value: values,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  else parameters[name] = values
}

/**
 * Parses a query string (no `?`) as Koa's `ctx.query` does, with URLSearchParams, into own properties of a
 * plain object (one without a prototype is a slow dictionary); a property test holds the two together.
 * Plain ASCII was once split by hand: it was no faster (ARCHITECTURE.md, "Made by hand, on purpose").
 */
export const parseQuery = (querystring: string): QueryParameters => {
  if (querystring === '') return EMPTY
  const parameters: Record<string, string | Array<string>> = {}
  for (const [name, value] of new URLSearchParams(querystring)) add(parameters, name, value)
  return parameters
}
