import {
  ApiKeyName,
  CategoryId,
  CheckedType,
  IdempotencyKey,
  MAX_ID,
  MAX_NAME_LENGTH,
  MAX_PAGE_LIMIT,
  PageCursor,
  PageLimit,
  PetId,
  PetName,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { DOMAIN_SCHEMAS, jsonSchemaOf } from '../src/index.js'

type IntegerSchema = { type: string; minimum: number; maximum: number; format?: string }

describe('the JSON Schema of a checked codec of the domain', () => {
  it.each([
    { codec: PetId, minimum: 1, maximum: MAX_ID, format: 'int64' },
    { codec: CategoryId, minimum: 1, maximum: MAX_ID, format: 'int64' },
    { codec: PageCursor, minimum: 0, maximum: MAX_ID, format: 'int64' },
    { codec: PageLimit, minimum: 1, maximum: MAX_PAGE_LIMIT, format: undefined },
  ])('$codec.name states the bounds that the codec itself accepts', ({ codec, minimum, maximum, format }) => {
    const schema = jsonSchemaOf(codec) as IntegerSchema
    expect(schema).toEqual({ type: 'integer', minimum, maximum, ...(format === undefined ? {} : { format }) })
    expect(codec.is(schema.minimum)).toBe(true)
    expect(codec.is(schema.maximum)).toBe(true)
    expect(codec.is(schema.minimum - 1)).toBe(false)
    expect(codec.is(schema.maximum + 1)).toBe(false)
    expect(codec.is(schema.minimum + 0.5)).toBe(false)
  })

  it('PetName states its length in code points and that it needs a character other than white space', () => {
    const schema = jsonSchemaOf(PetName)
    expect(schema).toMatchObject({ type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH })
    const pattern = new RegExp(schema.pattern as string, 'u')
    expect(pattern.test(' \t')).toBe(false)
    expect(pattern.test(' x ')).toBe(true)
    expect(PetName.is(' \t')).toBe(false)
    expect(PetName.is('🐕'.repeat(MAX_NAME_LENGTH))).toBe(true)
  })

  it('IdempotencyKey states the same rule in its pattern as the codec checks', () => {
    const pattern = new RegExp(jsonSchemaOf(IdempotencyKey).pattern as string)
    for (const key of ['a', 'a b', ' a', 'a ', 'é', '~!', 'tab\there', ''])
      expect(pattern.test(key)).toBe(E.isRight(IdempotencyKey.decode(key)))
  })

  it('has a schema for every checked codec of the domain, and refuses to describe one it lacks', () => {
    for (const codec of [PetId, CategoryId, PageCursor, PageLimit, PetName, ApiKeyName, IdempotencyKey]) {
      expect(codec).toBeInstanceOf(CheckedType)
      expect(DOMAIN_SCHEMAS.get(codec)?.type).toBeDefined()
    }
    const unknown = new CheckedType('Unstated', PetId.is, PetId.validate, PetId.encode)
    expect(() => jsonSchemaOf(unknown)).toThrow('Cannot describe Unstated: no JSON Schema is stated')
  })
})
