import { PET_STATUSES } from '@pets/domain'
import { HEADERS, type JsonSchema } from '@pets/wire'
import { REQUEST_ID_PATTERN } from '../request-id.js'
import {
  deprecationHeaderValues,
  type Deprecation,
  type ResponseHeader,
  type RouteSpec,
} from '../routes/route-table.js'

export type HeaderObject = {
  readonly description: string
  readonly required: boolean
  readonly schema: JsonSchema
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
// A path template as a pattern: `/pets/{petId}` → `/pets/[^/]+`. `[^\\]*` stops at the next escape,
// where `[^}]*` would run on to the end of the text from every `\{` of it.
const pathPattern = (template: string) => escape(template).replace(/\\\{[^\\]*\\\}/g, '[^/>]+')

export type HeaderRef = { readonly $ref: string }

/** The headers any answer may carry, described once in `components.headers`. */
export const COMMON_HEADERS: Readonly<Record<string, HeaderObject>> = {
  // CONTRACT: every response carries X-Request-Id, the caller's if acceptable, else a new one.
  [HEADERS.requestId]: {
    description:
      "The request's id: the caller's `X-Request-Id` when it is 1 to 128 visible ASCII characters, else a new one.",
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
  },
  'X-Content-Type-Options': {
    description: 'Tells browsers to take the media type as sent.',
    required: false,
    schema: { type: 'string', const: 'nosniff' },
  },
  // draft-ietf-httpapi-ratelimit-headers: sent after authentication when the host limits rates.
  'RateLimit-Policy': {
    description: 'The rate limit of the API key, when the service sets one: `"name";q=requests;w=seconds`.',
    required: false,
    schema: { type: 'string', pattern: '^"[^"]+";q=[0-9]+;w=[0-9]+$' },
  },
  RateLimit: {
    description: 'What is left of it: `"name";r=remaining;t=seconds` until that many are allowed again.',
    required: false,
    schema: { type: 'string', pattern: '^"[^"]+";r=[0-9]+;t=[0-9]+$' },
  },
  'Cache-Control': {
    description: 'How the answer may be cached; answers of the operations are not to be stored.',
    required: false,
    schema: { type: 'string' },
  },
}

/** The references to COMMON_HEADERS that every response of the document lists. */
export const commonHeaderRefs = (): Record<string, HeaderRef> =>
  Object.fromEntries(
    Object.keys(COMMON_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  )

type HeaderOfProblem = {
  readonly description: string
  readonly schema: (seen: ReadonlyArray<string>) => JsonSchema
}

/** The headers that toErrorResponse may add, by the name it gives them. */
export const PROBLEM_HEADERS: Readonly<Record<string, HeaderOfProblem>> = {
  [HEADERS.wwwAuthenticate]: {
    description:
      'The bearer challenge (RFC 6750); `error="invalid_token"` when a key was sent but is not valid.',
    schema: (seen) => ({ type: 'string', enum: [...new Set(seen)] }),
  },
  [HEADERS.allow]: {
    description: 'The methods this path allows.',
    schema: () => ({ type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' }),
  },
  [HEADERS.retryAfter]: {
    description: 'Seconds to wait before trying again.',
    schema: () => ({ type: 'integer', minimum: 0 }),
  },
  [HEADERS.acceptEncoding]: {
    description: 'The content codings a request body may have: none (`identity`).',
    schema: (seen) => ({ type: 'string', enum: [...new Set(seen)] }),
  },
}

/** The headers of an operation's success, by the route table's names, with their wire names. */
export const successHeaders = (
  routes: ReadonlyArray<RouteSpec>,
): Readonly<Record<ResponseHeader, { readonly name: string } & Omit<HeaderObject, 'required'>>> => {
  const pathOf = (operationId: string) => routes.find((r) => r.operationId === operationId)?.path ?? ''
  const statuses = PET_STATUSES.join('|')
  return {
    Location: {
      name: HEADERS.location,
      description: 'The URL of the new pet.',
      schema: { type: 'string', pattern: `^https?://[^\\s]+${pathPattern(pathOf('getPet'))}$` },
    },
    LinkNext: {
      name: HEADERS.link,
      description:
        'The next page (RFC 8288), present only when more pets match: the same `limit` and ' +
        '`status`, and `after` the last id of this page.',
      schema: {
        type: 'string',
        pattern: `^<[^>]+${pathPattern(pathOf('listPets'))}\\?limit=[0-9]+(&status=(${statuses}))?&after=[0-9]+>; rel="next"$`,
      },
    },
  }
}

/** The headers of every answer of a deprecated operation (RFC 9745, RFC 8594, RFC 8288). */
export const deprecationHeaders = (
  deprecation: Deprecation,
  routes: ReadonlyArray<RouteSpec>,
): Readonly<Record<string, Omit<HeaderObject, 'required'>>> => {
  const successor = routes.find((r) => r.operationId === deprecation.successor)?.path ?? ''
  // The values the operation sends, from the same declaration; only the Link's URL varies.
  const sent = deprecationHeaderValues(deprecation, successor)
  return {
    [HEADERS.deprecation]: {
      description: `Deprecated since ${deprecation.since.toISOString()} (RFC 9745).`,
      schema: { type: 'string', const: sent[HEADERS.deprecation] },
    },
    [HEADERS.sunset]: {
      description: `Removed on ${deprecation.sunset.toISOString()} (RFC 8594).`,
      schema: { type: 'string', const: sent[HEADERS.sunset] },
    },
    [HEADERS.link]: {
      description: `The operation to use instead, \`${deprecation.successor}\`.`,
      schema: { type: 'string', pattern: `^<[^>]+${pathPattern(successor)}>; rel="successor-version"$` },
    },
  }
}
