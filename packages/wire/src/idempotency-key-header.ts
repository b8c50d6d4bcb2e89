import { IdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { described } from './json-schema.js'

// A field value starts and ends with a visible character (RFC 9110, 5.5: parsers strip white space),
// so a key the domain allows with a space at either end could never arrive as sent.
const VISIBLE_ENDS_PATTERN = '^[\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?$'
const VISIBLE_ENDS = new RegExp(VISIBLE_ENDS_PATTERN)

/**
 * The Idempotency-Key header's value: an IdempotencyKey that an HTTP header can carry. The service decodes
 * what it receives with it; the client checks a caller's key with it before sending (fetch would trim it).
 */
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
