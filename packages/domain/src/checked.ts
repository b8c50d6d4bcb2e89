import * as t from 'io-ts'

/** A codec made by `checked`: a rule of the domain, with a message for each way to break it. */
export class CheckedType<B, A> extends t.Type<B, A, unknown> {
  readonly _tag = 'CheckedType' as const
}

/**
 * A codec that accepts what `base` accepts and `problem` finds nothing wrong with; each failure has
 * a message for people ("must be …"). Stating the rule to programs (JSON Schema) is `@pets/wire`'s.
 */
export const checked = <B extends A, A>(
  name: string,
  base: t.Type<A, A, unknown>,
  expected: string,
  problem: (value: A) => string | undefined,
): CheckedType<B, A> =>
  new CheckedType<B, A>(
    name,
    (u): u is B => base.is(u) && problem(u) === undefined,
    (u, c) => {
      if (!base.is(u)) return t.failure(u, c, expected)
      const found = problem(u)
      return found === undefined ? t.success(u as B) : t.failure(u, c, found)
    },
    (b) => b,
  )

/** One thing wrong with an input: the dotted path of the field and what it must be. */
export type Issue = { readonly field: string; readonly problem: string }

// Intersections and unions add context entries of their own; only object keys and array indexes
// name a place in the input.
const naming = new Set([
  'InterfaceType',
  'PartialType',
  'StrictType',
  'ExactType',
  'ArrayType',
  'ReadonlyArrayType',
])

const expectation = (error: t.ValidationError): string => {
  const codec = error.context[error.context.length - 1]?.type
  if (codec instanceof t.KeyofType) return `must be one of ${Object.keys(codec.keys).join(', ')}`
  if (
    codec instanceof t.InterfaceType ||
    codec instanceof t.PartialType ||
    codec instanceof t.IntersectionType
  )
    return 'must be an object'
  return 'is invalid'
}

/** Turns io-ts errors into one issue per offending field, in the order they were found. */
export const describeErrors = (errors: t.Errors): ReadonlyArray<Issue> => {
  const issues = new Map<string, Issue>()
  for (const error of errors) {
    const path: Array<string> = []
    for (let i = 1; i < error.context.length; i++) {
      const parent = error.context[i - 1]?.type as { _tag?: string } | undefined
      if (parent?._tag !== undefined && naming.has(parent._tag)) path.push(error.context[i]?.key ?? '')
    }
    const field = path.join('.')
    const problem =
      error.value === undefined && path.length > 0 ? 'is required' : (error.message ?? expectation(error))
    if (!issues.has(field)) issues.set(field, { field, problem })
  }
  return [...issues.values()]
}

/**
 * How many Unicode code points a string has (a surrogate pair is one, a lone half one too, as `for…of`
 * counts them): what people count as characters. An index loop: the string iterator took 12 ns a character,
 * 0.75 ms for a 64 KiB name.
 */
export const countCodePoints = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const code = s.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}
