import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson, requestFingerprint } from '../src/index.js'

// The same JSON value written another way: keys shuffled at every level, white space around tokens.
const rewritten = (value: unknown, seed: number): string => {
  const space = ' \n\t'.slice(0, seed % 4)
  if (typeof value !== 'object' || value === null) return `${space}${JSON.stringify(value)}${space}`
  if (Array.isArray(value)) return `[${value.map((v, i) => rewritten(v, seed + i)).join(`,${space}`)}]`
  const entries = Object.entries(value)
  const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!)
  const shuffled = seed % 2 === 0 ? rotated : rotated.reverse()
  return `{${space}${shuffled
    .map(([k, v], i) => `${JSON.stringify(k)}${space}:${rewritten(v, seed + i)}`)
    .join(',')}}`
}

describe('canonicalJson', () => {
  it('sorts keys at every level and drops white space', () => {
    expect(canonicalJson(JSON.parse('{ "b": [ {"y":1, "x":2} ], "a": "s" }'))).toBe(
      '{"a":"s","b":[{"x":2,"y":1}]}',
    )
  })

  it('writes numbers and strings as JSON.stringify does, so 1.0 and 1 are the same value', () => {
    expect(canonicalJson(JSON.parse('[1.0, 1e2, -0, "\\u0065"]'))).toBe('[1,100,0,"e"]')
  })

  it('keeps a __proto__ key as the plain key it is', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"a":1},"b":2}'))).toBe('{"__proto__":{"a":1},"b":2}')
  })

  it('sorts keys by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalJson({ '\u00e9': 1, z: 2, '\ud83d\ude00': 3, '\ufb01': 4 })).toBe(
      '{"z":2,"é":1,"😀":3,"ﬁ":4}',
    )
  })
})

describe('requestFingerprint', () => {
  it('is the SHA-256 of the canonical JSON, in hex', () => {
    expect(requestFingerprint({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a')
  })

  it('is the same for any rewriting of one JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        const text = rewritten(value, seed)
        expect(requestFingerprint(JSON.parse(text))).toBe(requestFingerprint(value))
      }),
      { numRuns: 2_000 },
    )
  })

  it('differs for different JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b))
        expect(requestFingerprint(a)).not.toBe(requestFingerprint(b))
      }),
      { numRuns: 2_000 },
    )
  })
})
