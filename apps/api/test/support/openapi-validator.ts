import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

type Json = { readonly [key: string]: unknown }
type Doc = Json & { readonly paths: Json; readonly components: Json }

/** What the validator needs of an exchange: the request line, and the whole answer. */
export type Exchange = {
  readonly method: string
  /** The request target: path and query, such as `/v1/pets?limit=1`. */
  readonly target: string
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/** Checks answers against an OpenAPI document. */
export type ResponseValidator = {
  /**
   * What in the answer the document does not allow: an undocumented status, header or field, a
   * missing required header, a value its schema refuses. Undefined when the document does not
   * describe the path at all (operations endpoints, unknown paths).
   */
  readonly problemsOf: (exchange: Exchange) => ReadonlyArray<string> | undefined
}

// HTTP's own message framing: not part of any interface. Content-Type is checked against `content`.
const FRAMING = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'date',
  'content-type',
])
const COMPONENTS_ID = 'urn:openapi:components'

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const templatePattern = (template: string) =>
  new RegExp(`^${escape(template).replace(/\\\{[^}]*\\\}/g, '[^/]+')}$`)

// ajv knows JSON Schema, not OpenAPI: refs into components.schemas become refs into one schema.
const forAjv = (schema: unknown): Json =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`)) as Json

// A header's value is text; its schema may say it stands for a number.
const headerValue = (schema: Json, value: string): unknown =>
  (schema.type === 'integer' || schema.type === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(value)
    ? Number(value)
    : value

/**
 * A validator of answers against an OpenAPI 3.1 document, with ajv's draft 2020-12 validator for
 * bodies and header values. `prefix` is where the service serves the document's paths (its
 * servers' URLs may be public ones, behind a proxy). A method that is not an operation of a
 * documented path may only answer the document's Unauthorized or MethodNotAllowed responses.
 */
export const createResponseValidator = (document: unknown, prefix = '/v1'): ResponseValidator => {
  const doc = document as Doc
  const components = doc.components as Record<string, Record<string, Json>>
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false })
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) })
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: forAjv(components.schemas ?? {}) })
  const compiled = new Map<string, ValidateFunction>()
  const validatorOf = (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema)
    let validate = compiled.get(key)
    if (validate === undefined) compiled.set(key, (validate = ajv.compile(forAjv(schema))))
    return validate
  }
  const check = (schema: Json, value: unknown, where: string): Array<string> => {
    const validate = validatorOf(schema)
    if (validate(value)) return []
    return (validate.errors ?? []).map(
      (e) => `${where}${e.instancePath} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
    )
  }
  const resolve = (object: Json, kind: 'responses' | 'headers'): Json => {
    const ref = object.$ref
    if (typeof ref !== 'string') return object
    const name = ref.replace(`#/components/${kind}/`, '')
    const found = components[kind]?.[name]
    if (found === undefined) throw new Error(`the document has no ${ref}`)
    return found
  }
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: templatePattern(template),
  }))
  const otherMethods = {
    401: components.responses?.Unauthorized,
    405: components.responses?.MethodNotAllowed,
  }

  return {
    problemsOf: ({ method, target, status, headers, body }) => {
      const path = target.split('?')[0] ?? ''
      if (!path.startsWith(`${prefix}/`)) return undefined
      const template = templates.find(({ pattern }) => pattern.test(path.slice(prefix.length)))?.template
      if (template === undefined) return undefined
      const head = method.toUpperCase() === 'HEAD'
      const item = doc.paths[template] as Record<string, Json & { responses: Record<string, Json> }>
      const operation = item[head ? 'get' : method.toLowerCase()]
      const responses: Record<string, Json | undefined> = operation?.responses ?? otherMethods
      const where = `${method.toUpperCase()} ${template} → ${status}`
      const documented = responses[String(status)] ?? responses.default
      if (documented === undefined) return [`${where}: the status ${status} is not documented`]
      const response = resolve(documented, 'responses')
      const problems: Array<string> = []

      const described = new Map(
        Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, header]) => {
          const { schema, required } = resolve(header, 'headers') as { schema: Json; required?: boolean }
          return [name.toLowerCase(), { name, schema, required: required === true }]
        }),
      )
      for (const [name, value] of headers) {
        if (FRAMING.has(name)) continue
        const header = described.get(name)
        if (header === undefined) problems.push(`${where}: the header ${name} is not documented`)
        else problems.push(...check(header.schema, headerValue(header.schema, value), `the header ${name}`))
      }
      for (const [name, header] of described)
        if (header.required && !headers.has(name))
          problems.push(`${where}: the required header ${header.name} is missing`)

      const content = response.content as Record<string, { schema: Json }> | undefined
      const type = headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
      if (body === '') {
        if (content !== undefined && !head && status !== 304)
          problems.push(`${where}: the documented body is missing`)
      } else if (head) problems.push(`${where}: a HEAD answer has a body`)
      else if (content === undefined) problems.push(`${where}: a body is not documented`)
      else if (type === undefined || content[type] === undefined)
        problems.push(`${where}: the media type ${type ?? '(none)'} is not documented`)
      else {
        let parsed: unknown
        try {
          parsed = JSON.parse(body)
        } catch {
          return [...problems, `${where}: the body is not JSON`]
        }
        problems.push(...check(content[type].schema, parsed, 'the body'))
      }
      return problems.map((problem) => (problem.startsWith(where) ? problem : `${where}: ${problem}`))
    },
  }
}
