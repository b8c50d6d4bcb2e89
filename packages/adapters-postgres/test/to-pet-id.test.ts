import { describe, expect, it } from 'vitest'
import { toCategoryId, toPetId } from '../src/stores/to-pet-id.js'

// What an int8 column's text becomes: PostgreSQL writes digits, with a minus sign when negative.
describe('toPetId, toCategoryId', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['9007199254740991', 9007199254740991],
  ])('reads %s as %d', (raw, id) => {
    expect(toPetId(raw)).toBe(id)
    expect(toCategoryId(raw)).toBe(id)
  })

  it.each(['0', '-1', '9007199254740992', '9007199254740993', '9223372036854775807'])(
    'refuses %s, which no JSON number carries as an id, as a defect naming the column',
    (raw) => {
      expect(() => toPetId(raw)).toThrow(`pets.id holds "${raw}"`)
      expect(() => toCategoryId(raw)).toThrow(`pets.category_id holds "${raw}"`)
    },
  )
})
