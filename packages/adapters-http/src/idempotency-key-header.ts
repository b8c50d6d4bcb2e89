import type { IdempotencyKey, Issue } from '@pets/domain'
import { HEADERS, IdempotencyKeyHeader } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'

/** The request header that names a request so that its retries are performed at most once. */
export const IDEMPOTENCY_KEY_HEADER = HEADERS.idempotencyKey

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
