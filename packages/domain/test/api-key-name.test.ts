import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { ApiKeyName, MAX_API_KEY_NAME_LENGTH } from '../src/index.js'

describe('ApiKeyName', () => {
  it('counts characters as people do, in code points: 100 emoji pass, 101 do not', () => {
    const emoji = '🐕'
    expect(E.isRight(ApiKeyName.decode(emoji.repeat(MAX_API_KEY_NAME_LENGTH)))).toBe(true)
    expect(E.isLeft(ApiKeyName.decode(emoji.repeat(MAX_API_KEY_NAME_LENGTH + 1)))).toBe(true)
    expect(E.isRight(ApiKeyName.decode('a'.repeat(MAX_API_KEY_NAME_LENGTH)))).toBe(true)
    expect(E.isLeft(ApiKeyName.decode('a'.repeat(MAX_API_KEY_NAME_LENGTH + 1)))).toBe(true)
  })

  it.each([
    '',
    '   ',
    'tab\there',
    'nul\u0000',
    'del\u007F',
    'c1\u0085',
    'billing\u202Egnillib',
    'isolate\u2066x\u2069',
    'zero\u200Bwidth',
    'line\u2028break',
    'not utf-8 \uFFFD\uFFFD',
    'lone high \uD800 surrogate',
    'lone low \uDC00',
    'reversed \uDE00\uD83D',
  ])('refuses %j: empty, all white space, or a character that does not print as itself', (name) => {
    expect(E.isLeft(ApiKeyName.decode(name))).toBe(true)
  })

  it.each(['billing', 'Équipe paie', '請求', '👨‍👩‍👧 family', 'a b-c_d.e', '\uD83D\uDE00 paired'])(
    'takes %j',
    (name) => {
      expect(E.isRight(ApiKeyName.decode(name))).toBe(true)
    },
  )
})
