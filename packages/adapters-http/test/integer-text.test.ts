import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { numbersAreSafeIntegers } from '../src/integer-text.js'

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

describe('numbersAreSafeIntegers', () => {
  it.each([
    '1',
    '-1',
    '0',
    '-0',
    '9007199254740991',
    '-9007199254740991',
    '123456789012345',
    '[1,2,{"a":-3}]',
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
  ])('accepts %s: an integer within ±(2^53 − 1), however written', (text) => {
    expect(numbersAreSafeIntegers(text)).toBe(true)
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
    '[1,2.5]',
  ])('refuses %s: no integer, or not within ±(2^53 − 1), though JSON.parse may make one of it', (text) => {
    expect(numbersAreSafeIntegers(text)).toBe(false)
  })

  it('skips strings, escaped quotes and backslashes included', () => {
    expect(numbersAreSafeIntegers('{"a":"1.5","b":"\\"2.5","c":"\\\\","d":3}')).toBe(true)
    expect(numbersAreSafeIntegers('{"a":"\\\\","d":3.5}')).toBe(false)
    expect(numbersAreSafeIntegers('{"1.5":1}')).toBe(true)
    expect(numbersAreSafeIntegers('["\\\\\\"1.5",2]')).toBe(true)
    expect(numbersAreSafeIntegers('["\\\\",2.5]')).toBe(false)
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
        expect(numbersAreSafeIntegers(`{"name":"x","categoryId":${text}}`), text).toBe(
          denotesSafeInteger(text),
        )
      }),
      { numRuns: 2_000 },
    )
  })

  it('agrees with JSON.parse on any text JSON.stringify writes: true exactly when each number is a safe integer', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value)
        const numbers: Array<number> = []
        JSON.parse(text, (_key, v: unknown) => {
          if (typeof v === 'number') numbers.push(v)
          return v
        })
        // JSON.stringify writes an integer below 10^21 as its digits, anything else with a point or
        // an exponent (from 10^21 on, an integer beyond 2^53).
        expect(numbersAreSafeIntegers(text)).toBe(numbers.every((n) => Number.isSafeInteger(n)))
      }),
      { numRuns: 2_000 },
    )
  })
})
