import { hash } from 'node:crypto'

/** The SHA-256 digest of an API key, as hex: what the store keeps instead of the key. */
export const sha256Hex = (key: string): string => hash('sha256', key, 'hex')
