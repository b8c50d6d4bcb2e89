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
 * Parses a query string (without its `?`) as Koa's `ctx.query` does (URLSearchParams: `+` is a
 * space, percent-decoding, empty pairs skipped, a parameter given twice becomes an array), into
 * own properties only: a parameter named `__proto__` or `constructor` is a parameter like any
 * other. (A plain object: one without a prototype is a slow dictionary from its first property.) A query of plain ASCII, the usual one, is split by hand; any other goes through
 * URLSearchParams itself, so both read every query alike (a property test holds them together).
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
