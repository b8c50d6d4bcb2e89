import { IdempotencyKey, type Issue } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'

/** The request header that names a request so that its retries are performed at most once. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'

const issue = (problem: string): E.Either<Issue, never> => E.left({ field: IDEMPOTENCY_KEY_HEADER, problem })

/**
 * The Idempotency-Key of a request: none when it has no such header, else the key, or the issue
 * that a 400 names. The value is the key as sent (a quoted value keeps its quotes); sent twice,
 * it is refused rather than joined.
 */
export const idempotencyKeyOf = (ctx: Context): E.Either<Issue, O.Option<IdempotencyKey>> => {
  // node:http joins repeated headers with ", "; headersDistinct keeps them apart. A request made
  // without node:http's parser (light-my-request, a host's own injection) may lack it.
  const joined = ctx.req.headers['idempotency-key']
  const values =
    ctx.req.headersDistinct?.['idempotency-key'] ??
    (joined === undefined ? undefined : Array.isArray(joined) ? joined : [joined])
  if (values === undefined) return E.right(O.none)
  if (values.length > 1) return issue('must be sent at most once')
  const decoded = IdempotencyKey.decode(values[0])
  return E.isRight(decoded) ? E.right(O.some(decoded.right)) : issue(decoded.left[0]?.message ?? 'is invalid')
}
