import type { JsonSchema } from './domain-schemas.js'

/** Writes a value of a schema as JSON text: what JSON.stringify writes, without its generic walk. */
export type Serializer<A> = (value: A) => string

type Write = (value: unknown) => string

// Most strings need no escape: quoting them is cheaper than JSON.stringify, which the others get.
// Any surrogate goes to JSON.stringify too, so the output stays exactly JSON.stringify's.
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/
const writeString: Write = (s) => (NEEDS_ESCAPE.test(s as string) ? JSON.stringify(s) : `"${s as string}"`)
// An integer of the schema is a safe integer, whose decimal text is what JSON.stringify writes.
const writeNumber: Write = (n) => `${n as number}`
const writeBoolean: Write = (b) => ((b as boolean) ? 'true' : 'false')

const compile = (schema: JsonSchema, where: string): Write => {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    // Each value's JSON text, made once; a value outside the enum is still written as JSON.
    const texts = new Map((schema.enum as ReadonlyArray<string>).map((v) => [v, JSON.stringify(v)]))
    return (value) => texts.get(value as string) ?? writeString(value)
  }
  switch (schema.type) {
    case 'string':
      return writeString
    case 'integer':
      return writeNumber
    case 'boolean':
      return writeBoolean
    case 'array':
      return compileArray(schema.items as JsonSchema, where)
    case 'object':
      return compileObject(schema, where)
    default:
      // A schema this cannot write is a defect found at start, never a wrong answer later.
      throw new Error(`Cannot compile a serializer for ${where}: ${JSON.stringify(schema)}`)
  }
}

const compileArray = (items: JsonSchema, where: string): Write => {
  const item = compile(items, `${where}[]`)
  return (value) => {
    const array = value as ReadonlyArray<unknown>
    // A loop that appends: a third faster than map and join for a page of 100 (bench/RESULTS.md).
    let json = '['
    for (let i = 0; i < array.length; i++) json += (i === 0 ? '' : ',') + item(array[i])
    return `${json}]`
  }
}

const compileObject = (schema: JsonSchema, where: string): Write => {
  if (schema.additionalProperties !== false)
    throw new Error(`Cannot compile a serializer for ${where}: it must list every property`)
  const required = new Set((schema.required ?? []) as ReadonlyArray<string>)
  const fields = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(
    ([key, property]) => ({
      key,
      // The key's JSON text and its colon, made once.
      label: `${JSON.stringify(key)}:`,
      write: compile(property, `${where}.${key}`),
      optional: !required.has(key),
    }),
  )
  return (value) => {
    const object = value as Readonly<Record<string, unknown>>
    let json = '{'
    for (const { key, label, write, optional } of fields) {
      const field = object[key]
      if (optional && field === undefined) continue
      json += (json.length === 1 ? '' : ',') + label + write(field)
    }
    return `${json}}`
  }
}

/**
 * Compiles, once at start, the JSON writer of a JSON Schema: objects that list every property
 * (`additionalProperties: false`, in the schema's order), arrays, strings and string enums,
 * integers and booleans. It writes exactly what `JSON.stringify` writes for a valid value, and
 * only the schema's properties: a field that is not in the schema never reaches the wire. The
 * schema is the one the OpenAPI document publishes, so the two cannot drift apart.
 */
export const compileSerializer = <A>(schema: JsonSchema, name = 'value'): Serializer<A> =>
  compile(schema, name) as Serializer<A>
