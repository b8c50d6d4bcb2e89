import { describe, expect, it } from 'vitest'
import { environmentKeyId, environmentKeys } from '../src/environment-keys.js'

describe('the ids of the keys in API_KEYS', () => {
  it('follow the key, not its place in the list, so reordering API_KEYS keeps each id', () => {
    const [a, b] = environmentKeys(['first-key', 'second-key'])
    const [b2, a2] = environmentKeys(['second-key', 'first-key'])
    expect(a!.id).toBe(a2!.id)
    expect(b!.id).toBe(b2!.id)
    expect(a!.id).not.toBe(b!.id)
  })

  it('are env- and twelve hex digits of the digest, never the key', () => {
    expect(environmentKeyId('k1')).toMatch(/^env-[0-9a-f]{12}$/)
    expect(environmentKeyId('k1')).not.toContain('k1')
  })
})
