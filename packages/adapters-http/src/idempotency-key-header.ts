import { IdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, type Issue } from '@pets/domain'
import { described, HEADERS } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import type { Context } from 'koa'

/** The request header that names a request so that its retries are performed at most once. */
export const IDEMPOTENCY_KEY_HEADER = HEADERS.idempotencyKey

// Like every HTTP field value (RFC 9110, section 5.5), the key starts and ends with a visible
// character: parsers strip white space there, so a key with a space at either end could never
// arrive as it was sent. The domain's IdempotencyKey allows it; the header cannot carry it.
const VISIBLE_ENDS_PATTERN = '^[\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?$'
const VISIBLE_ENDS = new RegExp(VISIBLE_ENDS_PATTERN)

/** The Idempotency-Key header's value: an IdempotencyKey that an HTTP header can carry. */
export const IdempotencyKeyHeader = described(
  new t.Type<IdempotencyKey, string, unknown>(
    IdempotencyKey.name,
    (u): u is IdempotencyKey => IdempotencyKey.is(u) && VISIBLE_ENDS.test(u),
    (u, c) => {
      const key = IdempotencyKey.validate(u, c)
      return E.isLeft(key) || VISIBLE_ENDS.test(key.right)
        ? key
        : t.failure(u, c, 'must start and end with a visible character, not white space')
    },
    IdempotencyKey.encode,
  ),
  { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: VISIBLE_ENDS_PATTERN },
)

const issue = (problem: string): E.Either<Issue, never> => E.left({ field: IDEMPOTENCY_KEY_HEADER, problem })

/**
 * The Idempotency-Key of a request: none when it has no such header, else the key, or the issue
 * that a 400 names. The value is the key as sent (a quoted value keeps its quotes); sent twice,
 * it is refused rather than joined.
 */
export const idempotencyKeyOf = (ctx: Context): E.Either<Issue, O.Option<IdempotencyKey>> => {
  // node:http joins repeated headers with ", "; headersDistinct keeps them apart. A request made
  // without node:http's parser (light-my-request, a host's own injection) may lack it.
  // headersDistinct is made for every header at its first use: only a request with the key pays it.
  const joined = ctx.req.headers['idempotency-key']
  if (joined === undefined) return E.right(O.none)
  const values = ctx.req.headersDistinct?.['idempotency-key'] ?? (Array.isArray(joined) ? joined : [joined])
  if (values.length > 1) return issue('must be sent at most once')
  const decoded = IdempotencyKeyHeader.decode(values[0])
  return E.isRight(decoded) ? E.right(O.some(decoded.right)) : issue(decoded.left[0]?.message ?? 'is invalid')
}
