import { PetStatus } from '@pets/domain'
import {
  ErrorBody,
  jsonSchemaOf,
  NewPetBody,
  PetBody,
  PetsBody,
  schemaRef,
  type JsonSchema,
} from '@pets/wire'
import type * as t from 'io-ts'
import {
  AFTER_AUTHENTICATION,
  ROUTER_PROBLEMS,
  ROUTES,
  type Parameters,
  type RouteSpec,
} from '../routes/route-table.js'
import {
  deprecationHeaders,
  COMMON_HEADERS,
  commonHeaderRefs,
  successHeaders,
  type HeaderObject,
} from './headers.js'
import { annotate } from './field-notes.js'
import { problemResponses } from './problem-responses.js'

/** The version of the interface description (interface.md: "numbered 1.0.0"). */
export const API_VERSION = '1.0.0'

/** A base URL at which the operations are reached, ending in the version segment. */
export type OpenApiServer = { readonly url: string; readonly description?: string | undefined }

/** An OpenAPI 3.1 document, as plain JSON data. */
export type OpenApiDocument = { readonly openapi: string } & JsonSchema

// Described once, in components.schemas, under their codec's name, and referred to elsewhere.
const NAMED: ReadonlyArray<t.Mixed> = [PetBody, NewPetBody, PetsBody, PetStatus, ErrorBody]

const named = new Set(NAMED)
const schemaOf = (codec: t.Mixed) => (named.has(codec) ? schemaRef(codec) : jsonSchemaOf(codec, named))

const parametersOf = (where: 'path' | 'query' | 'header', params: Parameters | undefined) =>
  params === undefined
    ? []
    : Object.entries(params.codec.props).map(([name, codec]) => {
        const { description, default: fallback } = params.notes[name] ?? { description: '' }
        return {
          name,
          in: where,
          required: params.codec._tag === 'InterfaceType',
          description,
          schema: { ...schemaOf(codec), ...(fallback === undefined ? {} : { default: fallback }) },
        }
      })

const json = (schema: JsonSchema) => ({ 'application/json': { schema } })

const operationOf = (route: RouteSpec) => {
  const own = route.deprecation === undefined ? {} : deprecationHeaders(route.deprecation, ROUTES)
  const success = route.success
  const successHeaderOf = successHeaders(ROUTES)
  const responses: Record<string, JsonSchema> = {
    ...(success === undefined
      ? {}
      : {
          [String(success.status)]: {
            description: success.description,
            headers: {
              ...commonHeaderRefs(),
              ...Object.fromEntries(
                Object.entries(success.headers).map(([key, { required }]) => {
                  const { name, ...header } = successHeaderOf[key as keyof typeof successHeaderOf]
                  return [name, { ...header, required } satisfies HeaderObject]
                }),
              ),
              ...Object.fromEntries(
                Object.entries(own).map(([name, header]) => [name, { ...header, required: true }]),
              ),
            },
            content: json(schemaOf(success.body)),
          },
        }),
    ...problemResponses(
      [
        ...route.problems.map((problem) =>
          typeof problem === 'string'
            ? { tag: problem, fromOperation: true }
            : { tag: problem.example._tag, fromOperation: true, own: problem },
        ),
        ...ROUTER_PROBLEMS.map((tag) => ({ tag, fromOperation: AFTER_AUTHENTICATION.has(tag) })),
      ],
      own,
    ),
  }
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    ...(route.deprecation === undefined
      ? {}
      : { deprecated: true, 'x-sunset': route.deprecation.sunset.toISOString() }),
    parameters: [
      ...parametersOf('path', route.pathParameters),
      ...parametersOf('query', route.queryParameters),
      ...parametersOf('header', route.headerParameters),
    ],
    ...(route.requestBody === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            description: route.requestBody.description,
            content: json(schemaOf(route.requestBody.codec)),
          },
        }),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  }
}

const pathsOf = (routes: ReadonlyArray<RouteSpec>) => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operationOf(route) }
  return paths
}

/** The OpenAPI 3.1 document, built from the route table and codecs that serve it; `servers` end in `/v1`. */
export const buildOpenApiDocument = ({
  servers,
}: {
  readonly servers: ReadonlyArray<OpenApiServer>
}): OpenApiDocument => ({
  openapi: '3.1.0',
  info: {
    title: 'Animal store',
    version: API_VERSION,
    description:
      'List, add and retrieve the animals offered in a store. Every operation needs an API key as ' +
      'a bearer credential, checked before anything else. Every error is an `Error` body whose ' +
      '`status` equals the HTTP status. On these paths, another method answers 405 ' +
      'method_not_allowed with `Allow` (components.responses.MethodNotAllowed), and an unknown ' +
      'path under the server URL answers 404 not_found (components.responses.NotFound); with a rate ' +
      'limit, either may be 429 rate_limited first, as any request after authentication. Every GET ' +
      'operation also answers HEAD, with the status and headers of its GET and no body.',
  },
  // A description given as undefined is left out, as one not given is (a spread would keep the key).
  servers: servers.map(({ description, ...server }) =>
    description === undefined ? { ...server } : { ...server, description },
  ),
  tags: [
    { name: 'pets', description: 'The catalogue of animals.' },
    { name: 'store', description: 'The store: orders.' },
  ],
  security: [{ bearerAuth: [] }],
  paths: pathsOf(ROUTES),
  components: {
    schemas: Object.fromEntries(
      NAMED.map((codec) => [codec.name, annotate(codec.name, jsonSchemaOf(codec, named))]),
    ),
    responses: {
      Unauthorized: problemResponses([{ tag: 'Unauthorized', fromOperation: false }])['401'],
      NotFound: problemResponses([{ tag: 'RouteNotFound', fromOperation: false }])['404'],
      MethodNotAllowed: problemResponses([{ tag: 'MethodNotAllowed', fromOperation: false }])['405'],
    },
    headers: COMMON_HEADERS,
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description:
          "An API key: `Authorization: Bearer <API key>`. Keys are issued by the service's own command line.",
      },
    },
  },
})
