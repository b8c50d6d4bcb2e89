import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memberIsSafeInteger } from '../src/body/integer-text.js'
import { MAX_JSON_DEPTH, outlineJson } from '../src/body/json-depth.js'
import { charactersRead } from './support/watch-calls.js'

const MAX = BigInt(Number.MAX_SAFE_INTEGER)

// The oracle: the exact value of a JSON number's text, as a fraction of BigInts.
const denotesSafeInteger = (token: string): boolean => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)!
  const [, , whole = '', fraction = '', exponent = '0'] = match
  const digits = BigInt(whole + fraction)
  const power = BigInt(exponent) - BigInt(fraction.length)
  if (power >= 0n) return digits * 10n ** power <= MAX
  const divisor = 10n ** -power
  return digits % divisor === 0n && digits / divisor <= MAX
}

// The member as a body carries it, among others.
const categoryIdIs = (token: string) =>
  memberIsSafeInteger(`{"name":"x","categoryId":${token}}`, 'categoryId')

describe('memberIsSafeInteger', () => {
  it.each([
    '1',
    '-1',
    '0',
    '-0',
    '9007199254740991',
    '-9007199254740991',
    '123456789012345',
    '3.0',
    '1e2',
    '1E+2',
    '0.1e1',
    '100000000000000000000e-20',
    '90071992547409910e-1',
    '-0.0',
    '0e99999999999',
    '1e+0000000002',
    '1e-0000000000',
    '250e-0000000001',
  ])('accepts %s: an integer within ±(2^53 − 1), however written', (token) => {
    expect(categoryIdIs(token)).toBe(true)
  })

  it.each([
    '0.5',
    '9007199254740990.5',
    '9007199254740991.4',
    '0.99999999999999999',
    '9007199254740992',
    '-9007199254740992',
    '9007199254740993',
    '9007199254740992.0',
    '12345678901234567890',
    '1e16',
    '1e400',
    '1e-400',
    '1e99999999999',
  ])('refuses %s: no integer, or not within ±(2^53 − 1), though JSON.parse may make one of it', (token) => {
    expect(categoryIdIs(token)).toBe(false)
  })

  it("reads the top-level member's own number, the last one as JSON.parse keeps it, past strings of any escapes", () => {
    const of = (text: string) => memberIsSafeInteger(text, 'categoryId')
    expect(of('{"a":"1.5","b":"\\"2.5","c":"\\\\","categoryId":3}')).toBe(true)
    expect(of('{"a":"\\\\","categoryId":3.5}')).toBe(false)
    expect(of('{"name":1.5,"x":[2.5,{"categoryId":0.5}],"categoryId":3,"y":{"z":4.5}}')).toBe(true)
    expect(of('{"categoryId":1,"categoryId":0.99999999999999999}')).toBe(false)
    expect(of('{"categoryId":0.5,"categoryId":1}')).toBe(true)
    expect(of('{"category\\u0049d":0.5}')).toBe(false)
    expect(of('{"categoryI\\"d":0.5,"1.5":2}')).toBeUndefined()
    expect(of('{"x":"\\\\\\"categoryId\\":0.5","categoryId":2}')).toBe(true)
  })

  it('is undefined when the member is absent or no number', () => {
    const of = (text: string) => memberIsSafeInteger(text, 'categoryId')
    for (const text of [
      '{}',
      '{"name":0.5}',
      '{"categoryId":"0.5"}',
      '{"categoryId":[0.5]}',
      '{"categoryId":{"a":0.5}}',
      '{"categoryId":null}',
      '{"categoryId":true}',
      '{"categoryId":0.5,"categoryId":false}',
      '[{"categoryId":0.5}]',
      '[0.5]',
      '["categoryId",0.5]',
      '[1,"categoryId",0.5]',
      '0.5',
    ])
      expect(of(text), text).toBeUndefined()
  })

  it('agrees with the exact value of any number a JSON text may hold', () => {
    const token = fc
      .tuple(
        fc.boolean(),
        fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,20}$/)),
        fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
        fc.option(
          fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 40 })),
          {
            nil: undefined,
          },
        ),
      )
      .map(
        ([negative, whole, fraction, exponent]) =>
          `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}` +
          (exponent === undefined ? '' : `${exponent[0]}${exponent[1]}${exponent[2]}`),
      )
    fc.assert(
      fc.property(token, (text) => {
        expect(categoryIdIs(text), text).toBe(denotesSafeInteger(text))
      }),
      { numRuns: 2_000 },
    )
  })

  it('agrees with JSON.parse on any object JSON.stringify writes: whether its member is a safe integer', () => {
    const body = fc.tuple(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.option(fc.jsonValue(), { nil: undefined }),
    )
    fc.assert(
      fc.property(body, ([others, categoryId]) => {
        const text = JSON.stringify({ ...others, ...(categoryId === undefined ? {} : { categoryId }) })
        const member = (JSON.parse(text) as Record<string, unknown>)['categoryId']
        // JSON.stringify writes an integer below 10^21 as its digits, anything else with a point or
        // an exponent (from 10^21 on, an integer beyond 2^53).
        expect(memberIsSafeInteger(text, 'categoryId')).toBe(
          typeof member === 'number' ? Number.isSafeInteger(member) : undefined,
        )
      }),
      { numRuns: 2_000 },
    )
  })

  it('reads the member names where the outline found them, not the values between them again', async () => {
    // The member walk read the text a character at a time, values included, after the outline had.
    const text = `{"name":"x","tags":[${'0,'.repeat(20_000)}0],"categoryId":1}`
    const { names } = outlineJson(text, MAX_JSON_DEPTH)
    let found: boolean | undefined
    const read = await charactersRead(() => (found = memberIsSafeInteger(text, 'categoryId', names)))
    expect(found).toBe(true)
    expect(read).toBeLessThan(100)
  })
})
