import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  CategoryId,
  decodeNewPet,
  describeErrors,
  PetName,
  PetStatus,
  refuseUnknownKeys,
  UNKNOWN_NAMED,
  unknownKeyIssues,
  type Issue,
} from '../src/index.js'

const issuesOf = (input: unknown): ReadonlyArray<Issue> => {
  const decoded = decodeNewPet(input)
  if (E.isRight(decoded)) throw new Error(`expected a failure, got ${JSON.stringify(decoded.right)}`)
  expect(decoded.left._tag).toBe('InvalidInput')
  return decoded.left.issues
}

const describeFailure = <A>(codec: t.Type<A, unknown, unknown>, input: unknown): ReadonlyArray<Issue> => {
  const decoded = codec.decode(input)
  if (E.isRight(decoded)) throw new Error(`expected a failure, got ${JSON.stringify(decoded.right)}`)
  return describeErrors(decoded.left)
}

describe('decodeNewPet', () => {
  it('accepts a new pet with or without a status, and adds nothing', () => {
    expect(decodeNewPet({ name: 'Rex', categoryId: 1 })).toEqual(E.right({ name: 'Rex', categoryId: 1 }))
    expect(decodeNewPet({ name: ' Rex ', categoryId: 2, status: 'sold' })).toEqual(
      E.right({ name: ' Rex ', categoryId: 2, status: 'sold' }),
    )
  })

  it('says "is required" for each missing field', () => {
    expect(issuesOf({})).toEqual([
      { field: 'name', problem: 'is required' },
      { field: 'categoryId', problem: 'is required' },
    ])
    expect(issuesOf({ name: 'Rex' })).toEqual([{ field: 'categoryId', problem: 'is required' }])
  })

  it('gives one issue per offending field, each with its own message', () => {
    expect(issuesOf({ name: 5, categoryId: null, status: 'SOLD' })).toEqual([
      { field: 'name', problem: 'must be a string' },
      { field: 'categoryId', problem: 'must be an integer from 1 to 9007199254740991' },
      { field: 'status', problem: 'must be one of available, pending, sold' },
    ])
  })

  it('applies the invariants of the name and the category id', () => {
    expect(issuesOf({ name: '   ', categoryId: 0 })).toEqual([
      { field: 'name', problem: 'must contain at least one character that is not white space' },
      { field: 'categoryId', problem: 'must be an integer from 1 to 9007199254740991' },
    ])
  })

  it.each([null, undefined, 'Rex', 42, [], [{ name: 'Rex', categoryId: 1 }]])(
    'refuses a value that is not an object (%j) with one issue for the whole input',
    (input) => {
      const issues = issuesOf(input)
      expect(issues).toEqual([{ field: '', problem: 'must be an object' }])
    },
  )
})

const issuesOfDecoded = <A>(decoded: E.Either<{ readonly issues: ReadonlyArray<Issue> }, A>) => {
  if (E.isRight(decoded)) throw new Error(`expected a failure, got ${JSON.stringify(decoded.right)}`)
  return decoded.left.issues
}
const fieldsOfDecoded = <A>(decoded: E.Either<{ readonly issues: ReadonlyArray<Issue> }, A>) =>
  issuesOfDecoded(decoded).map((i) => i.field)

describe('decodeNewPet: exactly the fields of a new pet', () => {
  it('accepts a new pet as parsed from JSON', () => {
    expect(decodeNewPet(JSON.parse('{"name":"Rex","categoryId":3,"status":"pending"}'))).toEqual(
      E.right({ name: 'Rex', categoryId: 3, status: 'pending' }),
    )
    expect(decodeNewPet({ name: 'Rex', categoryId: 3 })).toEqual(E.right({ name: 'Rex', categoryId: 3 }))
  })

  it('refuses an id sent by the client, naming it', () => {
    expect(issuesOfDecoded(decodeNewPet({ id: 1, name: 'Rex', categoryId: 3 }))).toEqual([
      { field: 'id', problem: 'is not a field of a new pet (allowed: name, categoryId, status)' },
    ])
  })

  it('names every unknown field, including __proto__ and constructor from JSON.parse', () => {
    const body: unknown = JSON.parse(
      '{"name":"Rex","categoryId":3,"__proto__":{"x":1},"constructor":1,"tags":[]}',
    )
    expect(fieldsOfDecoded(decodeNewPet(body))).toEqual(['__proto__', 'constructor', 'tags'])
  })

  it('names wrong, missing and unknown fields together', () => {
    expect(issuesOfDecoded(decodeNewPet({ name: '', status: 'lost', owner: 'me' }))).toEqual([
      { field: 'name', problem: 'must contain at least one character that is not white space' },
      { field: 'categoryId', problem: 'is required' },
      { field: 'status', problem: 'must be one of available, pending, sold' },
      { field: 'owner', problem: 'is not a field of a new pet (allowed: name, categoryId, status)' },
    ])
  })

  it.each([
    ['a string', '"Rex"'],
    ['a number', '42'],
    ['null', 'null'],
    ['an array', '[{"name":"Rex","categoryId":3}]'],
  ])('refuses a body that is %s with one issue for the field ""', (_, json) => {
    expect(issuesOfDecoded(decodeNewPet(JSON.parse(json)))).toEqual([
      { field: '', problem: 'must be an object' },
    ])
  })

  it.each([3.5, 0, 9007199254740992, '3', null])('refuses the category id %j', (categoryId) => {
    expect(fieldsOfDecoded(decodeNewPet({ name: 'Rex', categoryId }))).toEqual(['categoryId'])
  })
})

describe('refuseUnknownKeys', () => {
  it(`names the first ${UNKNOWN_NAMED} unknown keys, cut to 64 characters, and counts the rest`, () => {
    const input = Object.fromEntries(
      Array.from({ length: UNKNOWN_NAMED + 5 }, (_, i) => [i === 0 ? 'k'.repeat(100) : `k${i}`, 1]),
    )
    const issues = issuesOfDecoded(refuseUnknownKeys(input, [], 'known', E.right(input)))
    expect(issues).toHaveLength(UNKNOWN_NAMED + 1)
    expect(issues[0]?.field).toBe(`${'k'.repeat(64)}…`)
    expect(issues[UNKNOWN_NAMED]).toEqual({ field: '5 more', problem: 'are unknown too' })
  })

  it('keeps the decoded value when every key is known and nothing else is wrong', () => {
    expect(refuseUnknownKeys({ a: 1 }, ['a'], 'known', E.right(1))).toEqual(E.right(1))
  })
})

describe('unknownKeyIssues', () => {
  it('names the first unknown keys it is given, and counts the others of the count, unlisted', () => {
    // A caller that read only the first names of 5,000 (createPet, from a body's text) gives their count.
    const problem = 'is not a field (allowed: a, b)'
    const first = Array.from({ length: UNKNOWN_NAMED }, (_, i) => `k${i}`)
    expect(unknownKeyIssues(first, 5_000, ['a', 'b'], 'a field')).toEqual([
      ...first.map((field) => ({ field, problem })),
      { field: `${5_000 - UNKNOWN_NAMED} more`, problem: 'are unknown too' },
    ])
    expect(unknownKeyIssues(['x', 'y'], 3, [], 'known')).toEqual([
      { field: 'x', problem: 'is not known (allowed: none)' },
      { field: 'y', problem: 'is not known (allowed: none)' },
      { field: '1 more', problem: 'are unknown too' },
    ])
  })
})

describe('describeErrors', () => {
  it('names a nested field by its dotted path, array indexes included', () => {
    const Owner = t.type({ owner: t.type({ pets: t.array(t.type({ name: PetName })) }) })
    expect(describeFailure(Owner, { owner: { pets: [{ name: 'Rex' }, { name: '' }] } })).toEqual([
      { field: 'owner.pets.1.name', problem: 'must contain at least one character that is not white space' },
    ])
  })

  it('does not add the members of an intersection or a union to the path', () => {
    const Both = t.intersection([t.type({ a: CategoryId }), t.partial({ b: t.union([PetStatus, t.null]) })])
    expect(describeFailure(Both, { a: 1, b: 'lost' }).map((i) => i.field)).toEqual(['b'])
  })

  it('keeps only the first issue of a field that fails several ways', () => {
    const Either = t.type({ b: t.union([PetStatus, CategoryId]) })
    expect(describeFailure(Either, { b: 'lost' })).toEqual([
      { field: 'b', problem: 'must be one of available, pending, sold' },
    ])
  })

  it('says "is required" only for a missing field, not for a missing whole input', () => {
    expect(describeFailure(t.type({ a: CategoryId }), {})).toEqual([{ field: 'a', problem: 'is required' }])
    expect(describeFailure(CategoryId, undefined)).toEqual([
      { field: '', problem: 'must be an integer from 1 to 9007199254740991' },
    ])
  })

  it('falls back to "is invalid" for a codec without a message', () => {
    expect(describeFailure(t.type({ a: t.number }), { a: 'x' })).toEqual([
      { field: 'a', problem: 'is invalid' },
    ])
  })
})
