import { apiKeyDigest } from '@pets/wire/api-key-secret'
import { describe, expect, it } from 'vitest'
import { environmentKeyId, environmentKeys, parseKeyEntry } from '../src/environment-keys.js'

const SECRET = 'a-deployment-secret-of-32-chars!'

describe('the ids of the keys in API_KEYS', () => {
  it('are never derived from the key alone: not the digest that a dictionary of short keys would find', () => {
    for (const secret of [undefined, SECRET]) {
      const [k1] = environmentKeys(['k1'], secret)
      expect(k1!.id).not.toContain(apiKeyDigest('k1').slice(0, 12))
      expect(k1!.id).not.toContain('k1')
    }
    // The id the issue found published on /metrics for API_KEYS=k1.
    expect(environmentKeys(['k1'])[0]!.id).not.toBe('env-6ab9f1eb8f7d')
  })

  it('of a named key (NAME:KEY) are env-NAME, whatever its place', () => {
    expect(environmentKeys(['billing:first-key', 'web-shop:second:key'])).toEqual([
      { key: 'first-key', name: 'billing', id: 'env-billing' },
      { key: 'second:key', name: 'web-shop', id: 'env-web-shop' },
    ])
  })

  it('of an unnamed key under API_KEY_ID_SECRET follow the key, so reordering API_KEYS keeps each id', () => {
    const [a, b] = environmentKeys(['first-key', 'second-key'], SECRET)
    const [b2, a2] = environmentKeys(['second-key', 'first-key'], SECRET)
    expect(a!.id).toBe(a2!.id)
    expect(b!.id).toBe(b2!.id)
    expect(a!.id).not.toBe(b!.id)
    expect(a!.id).toBe(environmentKeyId('first-key', SECRET))
    expect(a!.id).toMatch(/^env-[0-9a-f]{12}$/)
    // Another secret, another id: a published id tells nothing without the secret.
    expect(environmentKeyId('first-key', `${SECRET}x`)).not.toBe(a!.id)
  })

  it('of an unnamed key without a secret (refused in production) are its place in the list', () => {
    expect(environmentKeys(['k1', 'billing:k2', 'k3']).map((k) => [k.id, k.name])).toEqual([
      ['env-1', 'API_KEYS #1'],
      ['env-billing', 'billing'],
      ['env-3', 'API_KEYS #3'],
    ])
  })
})

describe('an entry of API_KEYS', () => {
  it.each([
    ['plain-key', { key: 'plain-key' }],
    ['billing:the-key', { key: 'the-key', name: 'billing' }],
    ['b_2-x:a:b:c', { key: 'a:b:c', name: 'b_2-x' }],
  ])('reads %s', (entry, parsed) => expect(parseKeyEntry(entry)).toEqual(parsed))

  it.each([':key', '1billing:key', 'bill ing:key', 'billing:', 'bil$:key'])(
    'refuses %s: a colon follows a name, and a key follows the colon',
    (entry) => expect(parseKeyEntry(entry)).toBeUndefined(),
  )
})
