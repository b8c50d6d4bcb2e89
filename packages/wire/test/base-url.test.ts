import { describe, expect, it } from 'vitest'
import { withoutTrailingSlashes } from '../src/index.js'

describe('withoutTrailingSlashes', () => {
  it.each([
    ['https://pets.internal/v1/', 'https://pets.internal/v1'],
    ['https://pets.internal/v1', 'https://pets.internal/v1'],
    ['/v1//', '/v1'],
    ['https://pets.internal/', 'https://pets.internal'],
    ['///', ''],
    ['', ''],
    ['/a/b/', '/a/b'],
  ])('makes %j %j', (text, expected) => expect(withoutTrailingSlashes(text)).toBe(expected))

  it('keeps the slashes inside the text, and reads a long run of slashes once', () => {
    const run = '/'.repeat(1_000_000)
    expect(withoutTrailingSlashes(`${run}x${run}`)).toBe(`${run}x`)
  })
})
