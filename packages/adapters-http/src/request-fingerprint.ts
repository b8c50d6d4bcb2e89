import { createHash } from 'node:crypto'

/**
 * A JSON value as one canonical text: object keys sorted by UTF-16 code units, no white space,
 * strings and numbers as JSON.stringify writes them (as RFC 8785 does). Two texts that parse to
 * the same value, whatever their key order and spacing, give the same canonical text.
 */
export const canonicalJson = (value: unknown): string => {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const members = Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
  return `{${members.join(',')}}`
}

/**
 * CONTRACT: "the same body" of an idempotent request is the same JSON value. Its fingerprint is
 * the SHA-256 of its canonical JSON, in hex: short to keep, and equal exactly when the values are.
 */
export const requestFingerprint = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')
