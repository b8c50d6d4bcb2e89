import { ConnectionStringError, parseConnectionTargets } from '@pets/adapters-postgres/connection-string'
import * as t from 'io-ts'
import { withoutTrailingSlashes } from '@pets/wire'

// The codecs of the variables that are URLs: where clients reach the API, where spans go, PostgreSQL.

// An absolute http or https URL without query or fragment, parsed; undefined for anything else.
const plainHttpUrl = (u: unknown): URL | undefined => {
  const url = typeof u === 'string' && URL.canParse(u) ? new URL(u) : undefined
  return url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    !url.search &&
    !url.hash
    ? url
    : undefined
}

// A string codec whose value, when it `fits` the URL it parses to, is kept as given, or with `serialized`
// written as that URL's serialization.
const urlCodec = (name: string, fits: (url: URL) => boolean, expected: string, serialized = false) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const url = plainHttpUrl(u)
      if (url === undefined || !fits(url)) return t.failure(u, c, expected)
      return t.success(serialized ? url.href : (u as string))
    },
    String,
  )

/** An absolute http or https URL without query or fragment. */
export const httpUrl = urlCodec(
  'URL',
  () => true,
  'must be an absolute http or https URL without query or fragment',
)

/**
 * Where clients reach the API (interface.md: a base URL whose path ends in the version segment `v1`): an
 * http or https URL without query, fragment or credentials, which would otherwise go out in every
 * `Location` and `Link` (RFC 9110, 4.2.4: never userinfo in an http URI a sender writes). Written as the
 * URL's serialization, which is ASCII: a host in another script in punycode (node refuses a header with a
 * character above U+00FF: every create would be a 500 after its pet was added), a space or `>` of the path
 * percent-encoded (either would end the URI-reference of a `Link`), the host in lower case, no default port.
 */
export const publicBaseUrl = urlCodec(
  'PublicBaseUrl',
  (url) => url.username === '' && url.password === '' && withoutTrailingSlashes(url.pathname).endsWith('/v1'),
  'must be an absolute http or https URL whose path ends in /v1, without query, fragment, user or password, ' +
    'such as https://api.example.com/v1',
  true,
)

/**
 * A postgres:// or postgresql:// connection URI, read as the storage will read it (libpq's, several hosts
 * too): a parameter it cannot honour is refused here, by name, before anything starts.
 */
export const postgresUrl = new t.Type<string, string, unknown>(
  'PostgresURL',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || !/^postgres(ql)?:\/\//.test(u))
      return t.failure(u, c, 'must be a postgres:// or postgresql:// connection URL')
    try {
      parseConnectionTargets(u, { defaultTargetSessionAttrs: 'any' })
      return t.success(u)
    } catch (error) {
      if (!(error instanceof ConnectionStringError)) throw error
      return t.failure(u, c, `is refused: ${error.problem}`)
    }
  },
  String,
)
