import type { CategoryId, Issue, Pet, PetId, PetName } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { parse } from 'node:querystring'
import { describe, expect, it } from 'vitest'
import { encodePet, encodePets } from '@pets/wire'
import { decodeListPetsQuery, decodePetId } from '../src/codecs.js'

const MAX = '9007199254740991'

const issuesOf = <A>(
  decoded: E.Either<{ readonly issues: ReadonlyArray<Issue> }, A>,
): ReadonlyArray<Issue> => {
  if (E.isRight(decoded)) throw new Error(`expected a failure, got ${JSON.stringify(decoded.right)}`)
  return decoded.left.issues
}
const fieldsOf = <A>(decoded: E.Either<{ readonly issues: ReadonlyArray<Issue> }, A>) =>
  issuesOf(decoded).map((i) => i.field)

const aPet = (
  overrides: Partial<{ id: number; name: string; categoryId: number; status: Pet['status'] }> = {},
) => {
  const { id = 1, name = 'Rex', categoryId = 2, status = 'available' } = overrides
  return { id: id as PetId, name: name as PetName, categoryId: categoryId as CategoryId, status }
}

describe('decodeListPetsQuery', () => {
  it('defaults limit to 20 and adds no status or after', () => {
    expect(decodeListPetsQuery({})).toEqual(E.right({ limit: 20 }))
  })

  it.each([
    ['1', 1],
    ['20', 20],
    ['100', 100],
    ['007', 7],
    // Leading zeros stand for nothing, however many: no length decides but the number's.
    [`${'0'.repeat(40)}1`, 1],
    [`${'0'.repeat(19)}100`, 100],
  ])('accepts the limit %j as %i', (limit, expected) => {
    expect(decodeListPetsQuery({ limit })).toEqual(E.right({ limit: expected }))
  })

  it.each(['', '0', '101', '1.5', '-1', '+1', ' 1', '1 ', '1e2', '0x10', 'ten', '1000000000000000000000'])(
    'refuses the limit %j, naming it',
    (limit) => {
      expect(issuesOf(decodeListPetsQuery({ limit }))).toEqual([
        { field: 'limit', problem: 'must be an integer from 1 to 100' },
      ])
    },
  )

  it.each(['available', 'pending', 'sold'] as const)('accepts the status %s', (status) => {
    expect(decodeListPetsQuery({ status })).toEqual(E.right({ limit: 20, status }))
  })

  it.each(['Sold', 'lost', ''])('refuses the status %j, naming the allowed values', (status) => {
    expect(issuesOf(decodeListPetsQuery({ status }))).toEqual([
      { field: 'status', problem: 'must be one of available, pending, sold' },
    ])
  })

  it.each([
    ['0', 0],
    ['42', 42],
    [MAX, 9007199254740991],
    [`${'0'.repeat(30)}${MAX}`, 9007199254740991],
    ['0'.repeat(30), 0],
  ])('accepts after=%s', (after, expected) => {
    expect(decodeListPetsQuery({ after, limit: '5' })).toEqual(E.right({ limit: 5, after: expected }))
  })

  it.each(['9007199254740992', '-1', '1.0', '', 'x', `${'0'.repeat(30)}9007199254740992`, '1'.repeat(21)])(
    'refuses after=%j',
    (after) => {
      expect(issuesOf(decodeListPetsQuery({ after }))).toEqual([
        { field: 'after', problem: 'must be an integer from 0 to 9007199254740991' },
      ])
    },
  )

  it('refuses a parameter given more than once', () => {
    expect(issuesOf(decodeListPetsQuery({ limit: ['5', '5'], status: 'sold' }))).toEqual([
      { field: 'limit', problem: 'must be given at most once' },
    ])
  })

  it('names an unknown parameter once, even when it is repeated', () => {
    const result = decodeListPetsQuery(parse('foo=1&foo=2'))
    expect(E.isLeft(result) && result.left.issues).toEqual([
      { field: 'foo', problem: 'is not a parameter of this operation (allowed: limit, status, after)' },
    ])
  })

  it('names unknown parameters, __proto__ and constructor among them', () => {
    const unknown = 'is not a parameter of this operation (allowed: limit, status, after)'
    expect(issuesOf(decodeListPetsQuery(parse('limit=5&page=2&__proto__=1&constructor=')))).toEqual([
      { field: 'page', problem: unknown },
      { field: '__proto__', problem: unknown },
      { field: 'constructor', problem: unknown },
    ])
  })

  it('names every offending parameter at once', () => {
    const query = { limit: '0', status: 'lost', after: ['1', '2'], offset: '3' }
    expect(fieldsOf(decodeListPetsQuery(query))).toEqual(['limit', 'status', 'after', 'offset'])
  })

  it('reads the value of no unknown parameter: a query of thousands of them is named, not copied', () => {
    // A 4 KiB URL holds about 1,350 such names; the values of every one were copied into a new object
    // for the codec (1.1-1.5 ms of CPU a request).
    const names = Array.from({ length: 2_000 }, (_, i) => `p${i}`)
    const read: Array<PropertyKey> = []
    const query = new Proxy(Object.fromEntries([['limit', '5'], ...names.map((n) => [n, '1'])]), {
      get: (target, name, receiver) => {
        read.push(name)
        return Reflect.get(target, name, receiver) as unknown
      },
    }) as Record<string, string>
    const issues = issuesOf(decodeListPetsQuery(query))
    expect(issues[0]).toEqual({
      field: 'p0',
      problem: 'is not a parameter of this operation (allowed: limit, status, after)',
    })
    expect(issues.at(-1)).toEqual({ field: '1980 more', problem: 'are unknown too' })
    expect(read.filter((name) => typeof name === 'string' && names.includes(name))).toEqual([])
  })
})

describe('decodePetId', () => {
  it.each([
    ['1', 1],
    [MAX, 9007199254740991],
  ])('accepts the id %s', (petId, expected) => {
    expect(decodePetId(petId)).toEqual(E.right(expected))
  })

  it.each(['0', '-1', '9007199254740992', '1.5', '1e3', ' 1', 'abc', ''])(
    'refuses the id %j, naming petId',
    (petId) => {
      expect(issuesOf(decodePetId(petId))).toEqual([
        { field: 'petId', problem: 'must be an integer from 1 to 9007199254740991' },
      ])
    },
  )
})

describe('encodePet', () => {
  it('writes exactly id, name, categoryId and status, in that order', () => {
    expect(encodePet(aPet({ id: 7, name: 'Rex', categoryId: 3, status: 'sold' }))).toBe(
      '{"id":7,"name":"Rex","categoryId":3,"status":"sold"}',
    )
    expect(Object.keys(JSON.parse(encodePet(aPet())))).toEqual(['id', 'name', 'categoryId', 'status'])
  })

  it('writes the largest ids exactly', () => {
    expect(encodePet(aPet({ id: 9007199254740991, categoryId: 9007199254740991 }))).toBe(
      '{"id":9007199254740991,"name":"Rex","categoryId":9007199254740991,"status":"available"}',
    )
  })

  it('escapes quotes, backslashes and control characters in the name', () => {
    expect(encodePet(aPet({ name: 'say "hi" \\ \n\t\u0001' }))).toBe(
      '{"id":1,"name":"say \\"hi\\" \\\\ \\n\\t\\u0001","categoryId":2,"status":"available"}',
    )
  })

  it.each([
    'Rex',
    '  spaced  ',
    '"}],"id":99,"x":"',
    'back\\slash',
    'line\nbreak\r\u001F',
    'Ünïcødé 🐕‍🦺',
    '\u2028\u2029',
    '🐈'.repeat(255),
  ])('encodes a pet that JSON.parse gives back unchanged (name %j)', (name) => {
    const pet = aPet({ id: 12, name, categoryId: 5, status: 'pending' })
    expect(JSON.parse(encodePet(pet))).toStrictEqual(pet)
  })
})

describe('encodePet, against JSON.stringify', () => {
  it.each([
    'Rex',
    'tab\there',
    'quote " and \\',
    'del \u007f',
    'é ß 中文',
    '🐕 paired',
    '\u2028',
    '<script>',
  ])('writes the name %j exactly as JSON.stringify does', (name) => {
    const pet = aPet({ id: 3, name, categoryId: 4, status: 'sold' })
    expect(encodePet(pet)).toBe(JSON.stringify({ id: 3, name, categoryId: 4, status: 'sold' }))
  })
})

describe('encodePets', () => {
  it('writes a bare JSON array of pets, in the order given', () => {
    const pets = [aPet({ id: 2, name: 'b"' }), aPet({ id: 1, status: 'sold' })]
    expect(encodePets(pets)).toBe(`[${encodePet(pets[0]!)},${encodePet(pets[1]!)}]`)
    expect(JSON.parse(encodePets(pets))).toStrictEqual(pets)
  })

  it('writes an empty array as []', () => {
    expect(encodePets([])).toBe('[]')
  })
})
