import * as t from 'io-ts'
import { checked, countCodePoints } from './checked.js'

/** The identifier of an API key: safe to log and show, unlike the key itself. */
export type ApiKeyId = string

/** Who called: the API key that authenticated a request, by id and name. Never the key. */
export type ApiKeyOwner = { readonly keyId: ApiKeyId; readonly name: string }

/** What the store keeps about a key: never the key, only facts about it. */
export type ApiKeyRecord = {
  readonly id: ApiKeyId
  readonly name: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
  readonly lastUsedAt: Date | null
}

/** A key just issued: the only moment its plain text exists. */
export type IssuedApiKey = { readonly key: string; readonly record: ApiKeyRecord }

/** The longest name of an API key, in characters (Unicode code points, as a pet's name). */
export const MAX_API_KEY_NAME_LENGTH = 100

/** The brand of ApiKeyName: a string only decoding can make. */
export interface ApiKeyNameBrand {
  readonly ApiKeyName: unique symbol
}
// What a name printed in a table of keys must not hold: controls (C0, DEL, C1), line and paragraph
// separators, format characters (bidi overrides that reorder a table, zero widths), unpaired surrogates
// (PostgreSQL cannot keep one: the key store would keep U+FFFD instead, as pg writes the name in UTF-8), and
// the replacement character that a name not in UTF-8 (a terminal's other encoding) became. One character
// class: linear. The joiner of emoji sequences (U+200D, a format character) is taken out before the test.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\uFFFD]/u
const ZERO_WIDTH_JOINER = '\u200D'

/**
 * A label for a key, so people know whose it is: 1 to 100 characters, not all white space, each one that
 * prints as itself (no control, format or separator character).
 */
export type ApiKeyName = t.Branded<string, ApiKeyNameBrand>
export const ApiKeyName = checked<ApiKeyName, string>('ApiKeyName', t.string, 'must be a string', (s) =>
  /\S/u.test(s) &&
  (s.length <= MAX_API_KEY_NAME_LENGTH || countCodePoints(s) <= MAX_API_KEY_NAME_LENGTH) &&
  !UNPRINTABLE.test(s.replaceAll(ZERO_WIDTH_JOINER, ''))
    ? undefined
    : `must have 1 to ${MAX_API_KEY_NAME_LENGTH} characters, not all white space, each one that prints as ` +
      'itself (no control, format or line separator character, no unpaired surrogate, no U+FFFD)',
)
