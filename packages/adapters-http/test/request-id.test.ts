import { describe, expect, it } from 'vitest'
import { requestIdOf } from '../src/request-id.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const visibleAscii = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('')

describe('requestIdOf', () => {
  it.each([
    ['one character', 'a'],
    ['128 characters', 'x'.repeat(128)],
    ['every visible ASCII character', visibleAscii],
    ['a UUID of the caller', '3f2b8c1e-0d9a-4c57-9e61-2a7d5b0c4e18'],
  ])('keeps the caller’s id of %s', (_, id) => {
    expect(requestIdOf(id)).toBe(id)
  })

  it.each([
    ['no header', undefined],
    ['an empty id', ''],
    ['129 characters', 'x'.repeat(129)],
    ['a space', 'abc def'],
    ['a tab', 'abc\tdef'],
    ['a newline at the end', 'abc\n'],
    ['a NUL', 'abc\u0000'],
    ['DEL', 'abc\u007F'],
    ['a non-ASCII letter', 'abcé'],
    ['an emoji', 'id-🐕'],
  ])('replaces %s by a fresh UUID', (_, header) => {
    const id = requestIdOf(header)
    expect(id).toMatch(UUID)
    expect(id).not.toBe(header)
  })

  it('makes a different id each time', () => {
    expect(requestIdOf(undefined)).not.toBe(requestIdOf(undefined))
    expect(requestIdOf('bad id')).not.toBe(requestIdOf('bad id'))
  })
})
