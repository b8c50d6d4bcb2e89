import { MAX_ID } from '@pets/domain'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { compileSerializer, encodePet, encodePets, jsonSchemaOf, PetsBody } from '../src/index.js'

const pet = fc.record({
  id: fc.integer({ min: 1, max: MAX_ID }),
  name: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  categoryId: fc.integer({ min: 1, max: MAX_ID }),
  status: fc.constantFrom('available', 'pending', 'sold'),
})

describe('the serializers compiled from the JSON Schema of the document', () => {
  it('write a Pet exactly as JSON.stringify does, in the order id, name, categoryId, status', () => {
    fc.assert(
      fc.property(pet, (p) => {
        // Built in another order on purpose: the schema, not the object, decides the order.
        const shuffled = { status: p.status, categoryId: p.categoryId, name: p.name, id: p.id }
        expect(encodePet(shuffled as never)).toBe(JSON.stringify(p))
      }),
      { numRuns: 2_000 },
    )
  })

  it('write a list of pets as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.array(pet, { maxLength: 30 }), (pets) => {
        expect(encodePets(pets as never)).toBe(JSON.stringify(pets))
      }),
      { numRuns: 500 },
    )
  })

  it('write the same where code cannot be made from strings (a strict Content-Security-Policy)', () => {
    vi.stubGlobal('Function', () => {
      throw new EvalError('Code generation from strings disallowed for this context')
    })
    try {
      const write = compileSerializer<ReadonlyArray<unknown>>(jsonSchemaOf(PetsBody), 'Pets')
      fc.assert(
        fc.property(fc.array(pet, { maxLength: 30 }), (pets) => {
          const extra = pets.map((p) => ({ secret: 'no', ...p }))
          expect(write(extra)).toBe(JSON.stringify(pets))
        }),
        { numRuns: 200 },
      )
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('never write a field that the schema does not list', () => {
    const withExtra = { id: 1, name: 'Rex', categoryId: 2, status: 'sold', secret: 'no', createdAt: 1 }
    expect(encodePet(withExtra as never)).toBe('{"id":1,"name":"Rex","categoryId":2,"status":"sold"}')
  })

  it('leave out an optional property that is undefined', () => {
    const write = compileSerializer<{ a?: string; b: boolean }>({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
      required: ['b'],
      additionalProperties: false,
    })
    expect(write({ b: true })).toBe('{"b":true}')
    expect(write({ a: 'x"y', b: false })).toBe('{"a":"x\\"y","b":false}')
  })

  it.each([
    [{ type: 'number' }],
    [{ type: 'object', properties: {} }],
    [{ anyOf: [{ type: 'string' }] }],
    [{ type: 'array', items: { type: 'null' } }],
  ])('refuse at start a schema they cannot write exactly: %j', (schema) => {
    expect(() => compileSerializer(schema)).toThrow(/Cannot compile a serializer/)
  })
})
