/** A query string's parameters: a value, or every value of a parameter given more than once. */
export type QueryParameters = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const EMPTY: QueryParameters = Object.freeze(Object.create(null) as QueryParameters)

const add = (parameters: Record<string, string | Array<string>>, name: string, value: string) => {
  const seen = Object.hasOwn(parameters, name) ? parameters[name] : undefined
  // The array of a repeated parameter is this parse's own: grown in place, not copied for each value
  // (`a&a&…` within a 4 KiB URL copied 2 million values, 7 ms of CPU).
  if (Array.isArray(seen)) {
    seen.push(value)
    return
  }
  const values = seen === undefined ? value : [seen, value]
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
 * Parses a query string (what follows the target's first `?`) as Koa's `ctx.query` does, with URLSearchParams
 * (but for a leading `?`, kept in the first name), into own properties of a plain object (one without a
 * prototype is a slow dictionary); a property test holds the two together.
 * Plain ASCII was once split by hand: it was no faster (ARCHITECTURE.md, "Made by hand, on purpose").
 */
export const parseQuery = (querystring: string): QueryParameters => {
  if (querystring === '') return EMPTY
  const parameters: Record<string, string | Array<string>> = {}
  // URLSearchParams drops a leading `?`, as of a whole search (`?a=1`); here it is a second one of the target
  // (`/v1/pets??status=sold`), the start of the first name (`?status`) as the URL standard reads the query.
  const text = querystring.charCodeAt(0) === 0x3f ? `&${querystring}` : querystring
  for (const [name, value] of new URLSearchParams(text)) add(parameters, name, value)
  return parameters
}
