import { hash, randomBytes } from 'node:crypto'

// A subpath of its own (`@pets/wire/api-key-secret`), not in the index: the client, which imports
// the index, runs on fetch alone and must not load node:crypto.

/** Makes a new API key: 32 random bytes, base64url, 43 characters. */
export const generateApiKey = (): string => randomBytes(32).toString('base64url')

/** The SHA-256 digest of an API key, 64 lower-case hex digits: what every key store keeps and looks up by. */
export const apiKeyDigest = (key: string): string => hash('sha256', key, 'hex')
