import type { JsonSchema } from './domain-schemas.js'

/** Writes a value of a schema as JSON text: what JSON.stringify writes, and only the schema's fields. */
export type Serializer<A> = (value: A) => string

// What the serializer hands to JSON.stringify: a copy of the value holding only what the schema
// lists, in the schema's order. Strings, integers and booleans are taken as they are.
type Project = (value: unknown) => unknown
const AS_IS: Project = (value) => value

const compile = (schema: JsonSchema, where: string): Project => {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return AS_IS
  switch (schema.type) {
    case 'string':
    case 'integer':
    case 'boolean':
      return AS_IS
    case 'array':
      return compileArray(schema.items as JsonSchema, where)
    case 'object':
      return compileObject(schema, where)
    default:
      // A schema this cannot write is a defect found at start, never a wrong answer later.
      throw new Error(`Cannot compile a serializer for ${where}: ${JSON.stringify(schema)}`)
  }
}

const compileArray = (items: JsonSchema, where: string): Project => {
  const item = compile(items, `${where}[]`)
  if (item === AS_IS) return AS_IS
  return (value) => {
    const array = value as ReadonlyArray<unknown>
    const projected = new Array<unknown>(array.length)
    for (let i = 0; i < array.length; i++) projected[i] = item(array[i])
    return projected
  }
}

type Field = { readonly key: string; readonly project: Project }

// The copy of an object as one object literal, `{"id": value["id"], …}`, made once from the
// schema's keys (JSON string literals, which are JavaScript's too): every copy gets the same
// hidden class, which JSON.stringify walks fastest. A property that is undefined is left out by
// JSON.stringify, as an optional property should be.
const literalCopy = (fields: ReadonlyArray<Field>): Project => {
  const entries = fields.map(({ key, project }, i) => {
    const read = `value[${JSON.stringify(key)}]`
    return `${JSON.stringify(key)}: ${project === AS_IS ? read : `${read} === undefined ? undefined : projects[${i}](${read})`}`
  })
  const make = new Function('projects', `return (value) => ({ ${entries.join(', ')} })`) as (
    projects: ReadonlyArray<Project>,
  ) => Project
  return make(fields.map((f) => f.project))
}

// The same copy where code cannot be made from strings (a page whose Content-Security-Policy
// forbids it, for the client): a loop, slower by about a third.
const loopCopy =
  (fields: ReadonlyArray<Field>): Project =>
  (value) => {
    const object = value as Readonly<Record<string, unknown>>
    const copy: Record<string, unknown> = {}
    for (const { key, project } of fields) {
      const field = object[key]
      if (field !== undefined) copy[key] = project(field)
    }
    return copy
  }

const compileObject = (schema: JsonSchema, where: string): Project => {
  if (schema.additionalProperties !== false)
    throw new Error(`Cannot compile a serializer for ${where}: it must list every property`)
  const fields = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(
    ([key, property]): Field => ({ key, project: compile(property, `${where}.${key}`) }),
  )
  try {
    return literalCopy(fields)
  } catch {
    return loopCopy(fields)
  }
}

/**
 * Compiles, once at start, the JSON writer of a JSON Schema: objects that list every property
 * (`additionalProperties: false`, in the schema's order), arrays, strings and string enums,
 * integers and booleans. It copies only the schema's properties, in its order, and gives the copy
 * to JSON.stringify: a field that is not in the schema never reaches the wire, and the text is
 * exactly JSON.stringify's. The schema is the one the OpenAPI document publishes, so the two
 * cannot drift apart. (Writing the JSON text by concatenation instead allocated 2.5 times as
 * much for a page of pets, in intermediate strings, for no less CPU: bench/RESULTS.md.)
 */
export const compileSerializer = <A>(schema: JsonSchema, name = 'value'): Serializer<A> => {
  const project = compile(schema, name)
  return (value) => JSON.stringify(project(value))
}
