import { describe, expect, it } from 'vitest'
import { apiKeyDigest, generateApiKey } from '../src/api-key-secret.js'

describe('the API key secret', () => {
  it('digests a key with SHA-256, the same bytes every time', () => {
    // The test vector of FIPS 180-2 for "abc".
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(apiKeyDigest('a key')).toBe(apiKeyDigest('a key'))
    // UTF-8, as the header's bytes arrive: a non-ASCII key has a digest of its own.
    expect(apiKeyDigest('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c')
    expect(apiKeyDigest('é')).not.toBe(apiKeyDigest('e'))
  })

  it('makes keys of 43 base64url characters, never the same twice', () => {
    const keys = Array.from({ length: 1000 }, generateApiKey)
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
