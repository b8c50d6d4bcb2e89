import {
  ApiKeyName,
  CategoryId,
  MAX_API_KEY_NAME_LENGTH,
  MAX_ID,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PAGE_LIMIT,
  PageCursor,
  PageLimit,
  PetId,
  PetName,
  IdempotencyKey,
} from '@pets/domain'
import type * as t from 'io-ts'

/** A JSON Schema (draft 2020-12) fragment: what a codec accepts, for describing an interface. */
export type JsonSchema = { readonly [keyword: string]: unknown }

const integer = (minimum: number, maximum: number, format?: 'int64'): JsonSchema => ({
  type: 'integer',
  ...(format === undefined ? {} : { format }),
  minimum,
  maximum,
})

/** The JSON Schema of each checked domain codec, held to the codec's answers by `domain-schemas.test.ts`. */
export const DOMAIN_SCHEMAS: ReadonlyMap<t.Mixed, JsonSchema> = new Map<t.Mixed, JsonSchema>([
  [PetId, integer(1, MAX_ID, 'int64')],
  [CategoryId, integer(1, MAX_ID, 'int64')],
  [PageCursor, integer(0, MAX_ID, 'int64')],
  [PageLimit, integer(1, MAX_PAGE_LIMIT)],
  [
    PetName,
    {
      type: 'string',
      minLength: 1,
      // JSON Schema counts maxLength in code points, as PetName does; `pattern` is unanchored.
      maxLength: MAX_NAME_LENGTH,
      pattern: '\\S',
      description:
        'At least one character that is not white space; no U+0000 and no unpaired surrogate. Kept exactly as sent.',
    },
  ],
  [ApiKeyName, { type: 'string', minLength: 1, maxLength: MAX_API_KEY_NAME_LENGTH, pattern: '\\S' }],
  [
    IdempotencyKey,
    { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
  ],
])
