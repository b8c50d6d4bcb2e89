import { IdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, type Issue } from '@pets/domain'
import { described, HEADERS } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import type { Context } from 'koa'

/** The request header that names a request so that its retries are performed at most once. */
export const IDEMPOTENCY_KEY_HEADER = HEADERS.idempotencyKey

// A field value starts and ends with a visible character (RFC 9110, 5.5: parsers strip white space),
// so a key the domain allows with a space at either end could never arrive as sent.
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
 * A request's Idempotency-Key as sent (a quoted value keeps its quotes): none, the key, or the issue a
 * 400 names. Sent twice, it is refused rather than joined.
 */
export const idempotencyKeyOf = (ctx: Context): E.Either<Issue, O.Option<IdempotencyKey>> => {
  // node:http joins repeated headers with ", "; headersDistinct (built at first use, so only keyed
  // requests pay it) keeps them apart, but a request injected without node's parser may lack it.
  const joined = ctx.req.headers['idempotency-key']
  if (joined === undefined) return E.right(O.none)
  const values = ctx.req.headersDistinct?.['idempotency-key'] ?? (Array.isArray(joined) ? joined : [joined])
  if (values.length > 1) return issue('must be sent at most once')
  const decoded = IdempotencyKeyHeader.decode(values[0])
  return E.isRight(decoded) ? E.right(O.some(decoded.right)) : issue(decoded.left[0]?.message ?? 'is invalid')
}
