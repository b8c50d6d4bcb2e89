import { DEFAULT_PAGE_LIMIT, GET_PET_SUNSET, MAX_PAGE_LIMIT } from '@pets/domain'
import * as t from 'io-ts'
import { HEADERS, IdempotencyKeyHeader, NewPetBody, PetBody, PetsBody } from '@pets/wire'
import { ListPetsQuery, PetIdParam } from '../codecs.js'
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency-key-header.js'
import type { Problem } from '../problems.js'
import { MAX_BODY_BYTES } from '../body/read-json-body.js'
import {
  INVALID_NEW_PET,
  INVALID_PET_ID,
  LONG_URL,
  UNREADABLE_BODY,
  type OwnProblem,
} from './route-problems.js'

/** What the document says about one parameter; `default` is what the operation assumes without it. */
export type ParameterNote = { readonly description: string; readonly default?: unknown }

/** The parameters of one place (path, query or headers): one codec, and a note on each of its keys. */
export type Parameters = {
  readonly codec: t.InterfaceType<t.Props> | t.PartialType<t.Props>
  readonly notes: Readonly<Record<string, ParameterNote>>
}

/** Ties a codec to a note on each of its keys: a parameter without a note is a type error. */
export const parameters = <P extends t.Props>(
  codec: t.InterfaceType<P> | t.PartialType<P>,
  notes: { readonly [K in keyof P]: ParameterNote },
): Parameters => ({ codec: codec as Parameters['codec'], notes })

/** A header of a response of an operation, beyond the ones every answer carries. */
export type ResponseHeader = 'Location' | 'LinkNext'

/** When an operation was deprecated, when it goes away, and what to use instead. */
export type Deprecation = {
  readonly since: Date
  readonly sunset: Date
  /** The operationId of the operation to use instead. */
  readonly successor: string
}

/** One operation: what routes it, and what its OpenAPI description is made of. */
export type RouteSpec = {
  readonly operationId: string
  readonly method: 'get' | 'post'
  /** Below the router's prefix, in OpenAPI's template syntax: `/pets/{petId}`. */
  readonly path: string
  readonly tag: 'pets' | 'store'
  readonly summary: string
  readonly description: string
  readonly pathParameters?: Parameters
  readonly queryParameters?: Parameters
  readonly headerParameters?: Parameters
  readonly requestBody?: { readonly codec: t.Mixed; readonly description: string }
  readonly success?: {
    readonly status: number
    readonly description: string
    readonly body: t.Mixed
    readonly headers: Readonly<Partial<Record<ResponseHeader, { readonly required: boolean }>>>
  }
  /** Declared here only: the deprecation headers, the OpenAPI document and usage counts derive from it. */
  readonly deprecation?: Deprecation
  /**
   * What the operation may answer besides success (by tag, as the problem's note tells it, or as it tells it
   * itself); authentication adds ROUTER_PROBLEMS to every one.
   */
  readonly problems: ReadonlyArray<Problem['_tag'] | OwnProblem>
}

/**
 * What any path under the prefix may answer around its operation: a request node's parser cannot read (400,
 * before authentication), auth, rate limit, defects.
 */
export const ROUTER_PROBLEMS: ReadonlyArray<Problem['_tag']> = [
  'Unauthorized',
  'RateLimited',
  'MalformedRequest',
  'StoreUnavailable',
  'InternalError',
]

/** Of ROUTER_PROBLEMS, those answered once the caller is authenticated: with the operation's own headers. */
export const AFTER_AUTHENTICATION: ReadonlySet<Problem['_tag']> = new Set(['RateLimited'])

// The request headers of createPet, with the codec idempotencyKeyOf decodes the header with.
const CreatePetHeaders = t.partial({ [IDEMPOTENCY_KEY_HEADER]: IdempotencyKeyHeader })

/** The operations: createPetsRouter serves exactly these and the OpenAPI document describes them. */
export const ROUTES = [
  {
    operationId: 'listPets',
    method: 'get',
    path: '/pets',
    tag: 'pets',
    summary: 'List pets',
    description:
      'Returns pets in ascending id order, at most `limit` of them. When more pets match, a `Link` ' +
      'header with `rel="next"` gives the URL of the next page. A malformed, out-of-range, repeated ' +
      'or unknown parameter gets 400 validation_failed naming it.',
    queryParameters: parameters(ListPetsQuery, {
      limit: {
        description: `Maximum number of pets returned, 1 to ${MAX_PAGE_LIMIT}.`,
        default: DEFAULT_PAGE_LIMIT,
      },
      status: { description: 'Return only pets with this status.' },
      after: {
        description:
          'Return only pets with a larger id: the last id of the page before. The `next` link carries it.',
      },
    }),
    success: {
      status: 200,
      description: 'The pets of this page, as a bare JSON array.',
      body: PetsBody,
      headers: { LinkNext: { required: false } },
    },
    problems: ['InvalidInput', LONG_URL, 'StoreUnavailable'],
  },
  {
    operationId: 'createPet',
    method: 'post',
    path: '/pets',
    tag: 'pets',
    summary: 'Add a pet',
    description:
      'Adds a pet and assigns it an id. The body must be sent as `application/json` (UTF-8) and be ' +
      `at most ${MAX_BODY_BYTES} bytes. A field the service does not keep, \`id\` included, is refused.`,
    headerParameters: parameters(CreatePetHeaders, {
      [IDEMPOTENCY_KEY_HEADER]: {
        description:
          'Makes the request safe to retry: it is performed at most once per API key and key for at ' +
          'least 24 hours. A retry with the same JSON body gets the first answer again; with another ' +
          'body 422, while the first still runs 409. 501 where the service keeps no keys.',
      },
    }),
    requestBody: { codec: NewPetBody, description: 'The pet to add; `status` defaults to `available`.' },
    success: {
      status: 201,
      description: 'The pet was added; `Location` is its URL.',
      body: PetBody,
      headers: { Location: { required: true } },
    },
    problems: [
      'UnsupportedMediaType',
      'PayloadTooLarge',
      UNREADABLE_BODY,
      LONG_URL,
      INVALID_NEW_PET,
      'IdempotencyKeyInUse',
      'IdempotencyKeyReused',
      'NotImplemented',
      'StoreUnavailable',
    ],
  },
  {
    operationId: 'getPet',
    method: 'get',
    path: '/pets/{petId}',
    tag: 'pets',
    summary: 'Find a pet by id (deprecated)',
    description:
      `Deprecated: removed on ${GET_PET_SUNSET.toISOString().slice(0, 10)}, from when on it answers ` +
      '410 gone. Use listPets with the `status` filter instead. Every answer of this operation ' +
      'carries `Deprecation`, `Sunset` and a `Link` to its successor.',
    pathParameters: parameters(PetIdParam, { petId: { description: 'The id of the pet.' } }),
    success: { status: 200, description: 'The pet.', body: PetBody, headers: {} },
    // CONTRACT: deprecated since the first release (RFC 9745); the domain answers Gone after its sunset.
    deprecation: { since: new Date('2026-01-01T00:00:00Z'), sunset: GET_PET_SUNSET, successor: 'listPets' },
    // Its 500 after authentication carries the deprecation headers too.
    problems: [INVALID_PET_ID, LONG_URL, 'PetNotFound', 'Gone', 'StoreUnavailable', 'InternalError'],
  },
  {
    operationId: 'listOrders',
    method: 'get',
    path: '/store/orders',
    tag: 'store',
    summary: 'List orders (not implemented)',
    description: 'Named by the interface, which shows nothing else about it: it answers 501 not_implemented.',
    problems: ['NotImplemented'],
  },
] as const satisfies ReadonlyArray<RouteSpec>

/** The operation ids of the interface; createPetsRouter needs one handler for each. */
export type OperationId = (typeof ROUTES)[number]['operationId']

/** The ids of the deprecated operations, whose callers are counted per API key. */
export const DEPRECATED_OPERATIONS: ReadonlyArray<OperationId> = ROUTES.flatMap((route) =>
  'deprecation' in route ? [route.operationId] : [],
)

/** The headers of every answer of a deprecated operation, as sent; `successorUrl` is its successor's URL. */
export const deprecationHeaderValues = (
  deprecation: Deprecation,
  successorUrl: string,
): Readonly<Record<string, string>> => ({
  [HEADERS.deprecation]: `@${deprecation.since.getTime() / 1000}`,
  [HEADERS.sunset]: deprecation.sunset.toUTCString(),
  [HEADERS.link]: `<${successorUrl}>; rel="successor-version"`,
})
