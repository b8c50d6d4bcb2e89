import { createHash } from 'node:crypto'

/** A JSON value as canonical text, as RFC 8785: keys sorted by code unit, no white space. */
export const canonicalJson = (value: unknown): string => {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const members = Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
  return `{${members.join(',')}}`
}

/** CONTRACT: the same body is the same JSON value; its fingerprint is the SHA-256 of its canonical JSON. */
export const requestFingerprint = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')
