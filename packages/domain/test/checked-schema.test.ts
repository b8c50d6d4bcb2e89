import { describe, expect, it } from 'vitest'
import {
  ApiKeyName,
  CategoryId,
  CheckedType,
  MAX_ID,
  MAX_NAME_LENGTH,
  MAX_PAGE_LIMIT,
  PageCursor,
  PageLimit,
  PetId,
  PetName,
} from '../src/index.js'

type IntegerSchema = { type: string; minimum: number; maximum: number; format?: string }

describe('the JSON Schema of a checked codec', () => {
  it.each([
    { codec: PetId, minimum: 1, maximum: MAX_ID, format: 'int64' },
    { codec: CategoryId, minimum: 1, maximum: MAX_ID, format: 'int64' },
    { codec: PageCursor, minimum: 0, maximum: MAX_ID, format: 'int64' },
    { codec: PageLimit, minimum: 1, maximum: MAX_PAGE_LIMIT, format: undefined },
  ])('$codec.name states the bounds that the codec itself accepts', ({ codec, minimum, maximum, format }) => {
    const schema = codec.schema as IntegerSchema
    expect(schema).toEqual({ type: 'integer', minimum, maximum, ...(format === undefined ? {} : { format }) })
    expect(codec.is(schema.minimum)).toBe(true)
    expect(codec.is(schema.maximum)).toBe(true)
    expect(codec.is(schema.minimum - 1)).toBe(false)
    expect(codec.is(schema.maximum + 1)).toBe(false)
    expect(codec.is(schema.minimum + 0.5)).toBe(false)
  })

  it('PetName states its length in code points and that it needs a character other than white space', () => {
    expect(PetName.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH })
    const pattern = new RegExp(PetName.schema?.pattern as string, 'u')
    expect(pattern.test(' \t')).toBe(false)
    expect(pattern.test(' x ')).toBe(true)
    expect(PetName.is(' \t')).toBe(false)
    expect(PetName.is('🐕'.repeat(MAX_NAME_LENGTH))).toBe(true)
  })

  it('every codec built with checked carries its schema and its name', () => {
    for (const codec of [PetId, CategoryId, PageCursor, PageLimit, PetName, ApiKeyName]) {
      expect(codec).toBeInstanceOf(CheckedType)
      expect(codec._tag).toBe('CheckedType')
      expect(codec.schema?.type).toBeDefined()
    }
  })
})
