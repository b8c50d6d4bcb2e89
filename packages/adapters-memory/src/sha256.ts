import { createHash, timingSafeEqual } from 'node:crypto'

/** The SHA-256 digest of an API key, as hex: what the store keeps instead of the key. */
export const sha256Hex = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex')

/** Compares two hex digests of equal length in constant time. */
export const sameDigest = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
