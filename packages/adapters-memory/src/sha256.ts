import { createHash } from 'node:crypto'

/** The SHA-256 digest of an API key, as hex: what the store keeps instead of the key. */
export const sha256Hex = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex')
