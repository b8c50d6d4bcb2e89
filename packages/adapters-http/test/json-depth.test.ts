import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { outlineJson } from '../src/body/json-depth.js'
import { endOfString } from '../src/body/json-text.js'

// The oracle: how deep a parsed value nests (a scalar 0, an empty array or object 1).
const depthOf = (value: unknown): number => {
  if (typeof value !== 'object' || value === null) return 0
  const inner = Array.isArray(value) ? (value as Array<unknown>) : Object.values(value)
  return 1 + inner.reduce<number>((deepest, item) => Math.max(deepest, depthOf(item)), 0)
}

// Strings full of what the scan must not count: brackets, braces, quotes and backslashes.
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ') })
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value

describe('outlineJson', () => {
  it('agrees with the depth of the parsed value, whatever the strings hold and however it is spaced', () => {
    fc.assert(
      fc.property(values, fc.integer({ min: 0, max: 8 }), fc.boolean(), (value, limit, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined)
        expect(outlineJson(text, limit).tooDeep).toBe(depthOf(JSON.parse(text)) > limit)
      }),
      { numRuns: 2_000 },
    )
  })

  it('finds where each member name of a top-level object opens, whatever its values and spacing', () => {
    fc.assert(
      fc.property(values, fc.boolean(), (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined)
        const parsed = JSON.parse(text) as unknown
        const names =
          typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.keys(parsed) : []
        // Each position is a quote that opens a JSON string whose value is the name, in JSON.parse's order
        // (the names of a dictionary are no integers: see `tricky`).
        expect(
          outlineJson(text, 8).names.map((open) => JSON.parse(text.slice(open, endOfString(text, open) + 1))),
        ).toEqual(names)
      }),
      { numRuns: 2_000 },
    )
  })

  it.each([
    ['{"a":1,"a":2,"b":[1,2],"c":{"d":3,"e":4}}', [1, 7, 13, 23]],
    [' \r\n{ "a" : "," , "b\\"" : {"c":1} }', [5, 17]],
    ['{}', []],
    [' { } ', []],
    ['[1,"a",{"b":2}]', []],
    ['"a,b"', []],
  ])('finds the member names of %s at %j, a name given twice found twice', (text, names) => {
    expect(outlineJson(text, 8).names).toEqual(names)
  })

  it.each([
    ['a string that never ends', '{"a":"[[[[[[', 2, false],
    ['a key with an escaped quote before brackets', '{"k\\"[[[":[1]}', 2, false],
    ['an escaped backslash ending a string', '{"k\\\\":[[[1]]]}', 2, true],
    ['closing brackets with nothing open', ']]]]][[[', 2, true],
    ['no JSON at all', 'hello', 0, false],
  ])('answers for %s without parsing it', (_, text, limit, deeper) => {
    expect(outlineJson(text, limit).tooDeep).toBe(deeper)
  })
})
