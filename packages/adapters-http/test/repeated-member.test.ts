import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, outlineJson } from '../src/body/json-depth.js'
import { repeatedMember } from '../src/body/repeated-member.js'
import { charactersRead } from './support/watch-calls.js'

describe('repeatedMember', () => {
  it.each([
    ['{"name":"A","name":"B","categoryId":1}', 'name'],
    ['{"categoryId":"x", "categoryId" :1}', 'categoryId'],
    ['{"name":"A","n\\u0061me":"B"}', 'name'],
    ['{"a":1,"b":{"a":2},"c":[{"b":3}],"b":4}', 'b'],
    ['{"":1,"":2}', ''],
    [' \r\n\t{"a":1,"a":2}', 'a'],
  ])('finds the name given twice in %s', (text, name) => {
    expect(repeatedMember(text)).toBe(name)
  })

  it.each([
    '{"name":"A","categoryId":1,"status":"sold"}',
    '{"name":"\\"name\\":1,","x":{"name":1,"name":2}}',
    '[{"a":1},{"a":2}]',
    '{"a":[{"a":1}],"b":{"a":{"a":1}}}',
    '"name"',
    '["a","b","b"]',
    ' [{"a":1},"a","a"]',
  ])(
    'finds none in %s (nested objects, strings, arrays and a top-level array are not its members)',
    (text) => {
      expect(repeatedMember(text)).toBeUndefined()
    },
  )

  it('agrees with what JSON.parse keeps, for any object', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })), { maxLength: 8 }),
        (members) => {
          const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`
          const names = members.map(([k]) => k)
          const repeated = names.find((k, i) => names.indexOf(k) !== i)
          expect(repeatedMember(text)).toBe(repeated)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('reads the member names where the outline found them, not the values between them again', async () => {
    const text = `{"name":"x","tags":"${'a'.repeat(20_000)}","digits":${'1'.repeat(20_000)},"name":"y"}`
    const { names } = outlineJson(text, MAX_JSON_DEPTH)
    let repeated: string | undefined
    const read = await charactersRead(() => (repeated = repeatedMember(text, names)))
    expect(repeated).toBe('name')
    expect(read).toBeLessThan(100)
  })
})
