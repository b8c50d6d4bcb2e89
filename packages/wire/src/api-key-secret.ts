import { hash, randomBytes } from 'node:crypto'

// A subpath of its own (`@pets/wire/api-key-secret`), not in the index: the client, which imports
// the index, runs on fetch alone and must not load node:crypto.

/** Makes a new API key: 32 random bytes, base64url, 43 characters. */
export const generateApiKey = (): string => randomBytes(32).toString('base64url')

/**
 * The SHA-256 digest of an API key: what a key store keeps and looks keys up by, instead of the
 * key itself. Every store uses this one, so a key issued by one is found by another.
 */
export const apiKeyDigest = (key: string): Buffer => hash('sha256', key, 'buffer')
