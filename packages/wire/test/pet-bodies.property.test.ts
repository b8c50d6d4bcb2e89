import { MAX_ID, PetName } from '@pets/domain'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodePet, encodePets, PetBody, PetsBody } from '../src/index.js'

// Any Pet the codec accepts, made with its keys in the codec's order, as the stores make them.
const pet = fc
  .record({
    id: fc.integer({ min: 1, max: MAX_ID }),
    name: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter(PetName.is),
    categoryId: fc.integer({ min: 1, max: MAX_ID }),
    status: fc.constantFrom(...Object.keys(PetBody.props.status.keys)),
  })
  .filter(PetBody.is)

describe('the writers of the pet bodies, held to the io-ts codecs', () => {
  it('know every field of the Pet codec: a new field needs encodePet to write it', () => {
    expect(Object.keys(PetBody.props)).toEqual(['id', 'name', 'categoryId', 'status'])
  })

  it('write any Pet as JSON.stringify writes what the codec encodes', () => {
    fc.assert(
      fc.property(pet, (p) => {
        expect(encodePet(p)).toBe(JSON.stringify(PetBody.encode(p)))
      }),
      { numRuns: 2_000 },
    )
  })

  it('write any list of pets as JSON.stringify writes what the codec encodes', () => {
    fc.assert(
      fc.property(fc.array(pet, { maxLength: 30 }), (pets) => {
        expect(encodePets(pets)).toBe(JSON.stringify(PetsBody.encode(pets)))
      }),
      { numRuns: 500 },
    )
  })

  it("write the codec's order and only its fields, whatever the object holds", () => {
    fc.assert(
      fc.property(pet, (p) => {
        const shuffled = { secret: 'no', status: p.status, categoryId: p.categoryId, name: p.name, id: p.id }
        expect(encodePet(shuffled)).toBe(JSON.stringify(PetBody.encode(p)))
      }),
      { numRuns: 200 },
    )
  })

  it('escape a name as JSON does', () => {
    const p = { id: 1, name: 'say "hi" \\ \n\t\u0001\u2028 🐈', categoryId: 2, status: 'sold' }
    expect(PetBody.is(p)).toBe(true)
    expect(encodePet(p as never)).toBe(
      '{"id":1,"name":"say \\"hi\\" \\\\ \\n\\t\\u0001\u2028 🐈","categoryId":2,"status":"sold"}',
    )
  })
})
