import { describe, expect, it } from 'vitest'
import { apiKeyDigest, generateApiKey } from '../src/api-key-secret.js'

describe('the API key secret', () => {
  it('digests a key with SHA-256, the same bytes every time', () => {
    // The test vector of FIPS 180-2 for "abc".
    expect(apiKeyDigest('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(apiKeyDigest('a key').equals(apiKeyDigest('a key'))).toBe(true)
    // UTF-8, as the header's bytes arrive: a non-ASCII key has a digest of its own.
    expect(apiKeyDigest('é').equals(apiKeyDigest('e'))).toBe(false)
  })

  it('makes keys of 43 base64url characters, never the same twice', () => {
    const keys = Array.from({ length: 1000 }, generateApiKey)
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
