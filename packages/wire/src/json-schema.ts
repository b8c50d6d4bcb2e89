import * as t from 'io-ts'
import { DOMAIN_SCHEMAS, type JsonSchema } from './domain-schemas.js'

/** A wire codec with its JSON Schema beside it, for refinements the domain does not define (HTTP status). */
export class Described<A, O> extends t.Type<A, O, unknown> {
  readonly _tag = 'Described' as const
  constructor(
    codec: t.Type<A, O, unknown>,
    readonly schema: JsonSchema,
  ) {
    super(codec.name, codec.is, codec.validate, codec.encode)
  }
}

/** `codec`, described in JSON Schema as `schema`. */
export const described = <A, O>(codec: t.Type<A, O, unknown>, schema: JsonSchema): Described<A, O> =>
  new Described(codec, schema)

/** Codecs that the document describes once, in `components.schemas`, under their codec's name. */
export type NamedCodecs = ReadonlySet<t.Mixed>

/** Where a named codec's schema lives in the document. */
export const schemaRef = (codec: t.Mixed): JsonSchema => ({ $ref: `#/components/schemas/${codec.name}` })

type Shape = t.Mixed & {
  readonly _tag?: string
  readonly schema?: JsonSchema
  readonly keys?: Record<string, unknown>
  readonly props?: t.Props
  readonly types?: ReadonlyArray<t.Mixed>
  readonly type?: t.Mixed
}

const objectSchema = (props: t.Props, required: ReadonlyArray<string>, named: NamedCodecs): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, describe(codec, named)])),
  ...(required.length === 0 ? {} : { required }),
  // CONTRACT: unknown fields are refused in requests, and a Pet or an Error is exactly its fields.
  additionalProperties: false,
})

// An intersection of objects is one object: with allOf, `additionalProperties: false` in each part
// would refuse the keys of the others.
const mergeObjects = (parts: ReadonlyArray<JsonSchema>, name: string): JsonSchema => {
  if (parts.some((part) => part.type !== 'object'))
    throw new Error(`Cannot describe ${name}: not all objects`)
  const properties = Object.assign({}, ...parts.map((part) => part.properties)) as JsonSchema
  const required = parts.flatMap((part) => (part.required ?? []) as ReadonlyArray<string>)
  return {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required }),
    additionalProperties: false,
  }
}

const describe = (codec: t.Mixed, named: NamedCodecs, root = false): JsonSchema => {
  if (!root && named.has(codec)) return schemaRef(codec)
  const known = DOMAIN_SCHEMAS.get(codec)
  if (known !== undefined) return known
  const c = codec as Shape
  switch (c._tag) {
    case 'Described':
      return c.schema as JsonSchema
    case 'CheckedType':
      throw new Error(`Cannot describe ${c.name}: no JSON Schema is stated for this checked codec`)
    case 'KeyofType':
      return { type: 'string', enum: Object.keys(c.keys ?? {}) }
    case 'StringType':
      return { type: 'string' }
    case 'NumberType':
      return { type: 'number' }
    case 'BooleanType':
      return { type: 'boolean' }
    case 'InterfaceType':
      return objectSchema(c.props ?? {}, Object.keys(c.props ?? {}), named)
    case 'PartialType':
      return objectSchema(c.props ?? {}, [], named)
    case 'IntersectionType':
      return mergeObjects(
        (c.types ?? []).map((part) => describe(part, named, true)),
        c.name,
      )
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return { type: 'array', items: describe(c.type as t.Mixed, named) }
    default:
      throw new Error(`Cannot describe the codec ${c.name} (${c._tag ?? 'a custom type'}) in JSON Schema`)
  }
}

/**
 * The JSON Schema (draft 2020-12) of what an io-ts codec accepts; a named codec inside refers to its
 * component. A codec it cannot describe throws, so the document never describes less than is served.
 */
export const jsonSchemaOf = (codec: t.Mixed, named: NamedCodecs = new Set()): JsonSchema =>
  describe(codec, named, true)
