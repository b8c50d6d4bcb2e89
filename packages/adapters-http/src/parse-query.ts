/** A query string's parameters: a value, or every value of a parameter given more than once. */
export type QueryParameters = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const EMPTY: QueryParameters = Object.freeze(Object.create(null) as QueryParameters)

// Text that URLSearchParams would change: percent-escapes, `+` (a space), anything not ASCII.
// eslint-disable-next-line no-control-regex -- the whole range outside printable ASCII is meant
const ENCODED = /[%+\u0000-\u001f\u007f-\uffff]/

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
 * Parses a query string (no `?`) as Koa's `ctx.query` (URLSearchParams) does, into own properties of a
 * plain object (one without a prototype is a slow dictionary). Plain ASCII is split by hand, the rest
 * by URLSearchParams; a property test holds the two together.
 */
export const parseQuery = (querystring: string): QueryParameters => {
  if (querystring === '') return EMPTY
  const parameters: Record<string, string | Array<string>> = {}
  if (ENCODED.test(querystring)) {
    for (const [name, value] of new URLSearchParams(querystring)) add(parameters, name, value)
    return parameters
  }
  for (const pair of querystring.split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    if (equals === -1) add(parameters, pair, '')
    else add(parameters, pair.slice(0, equals), pair.slice(equals + 1))
  }
  return parameters
}
