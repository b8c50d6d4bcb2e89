import { describe, expect, it } from 'vitest'
import { slowCases, stringCases } from './support/linear-time.js'

// The harness behind every *.linear-time and linear-time property test: it must tell quadratic code from
// linear code, or those tests could not fail.

// Looks back over everything before each character: half a billion steps on the long run.
const quadratic = (text: string): number => {
  let found = 0
  for (let i = 0; i < text.length; i++) found += text.slice(0, i).lastIndexOf('y')
  return found
}
const linear = (text: string): number => {
  let found = 0
  for (let i = 0; i < text.length; i++) found += text.charCodeAt(i) === 0x79 ? 1 : 0
  return found
}
const casesOf = (decode: (text: string) => number) =>
  stringCases(
    'a run alone',
    ['x'],
    (run) => run,
    decode,
    (input) => decode(input),
  )

describe('the linear-time harness', () => {
  // Half a billion steps: past the tests' 30 s on a machine running every package's tests.
  it('finds a quadratic decoder slow', { timeout: 120_000 }, async () => {
    expect(await slowCases(casesOf(quadratic))).toEqual([
      expect.stringMatching(/^a run alone, "x": \d+\.\d times as long/),
    ])
  })

  it('finds a linear decoder fast', async () => {
    expect(await slowCases(casesOf(linear))).toEqual([])
  })
})
