/** The bytes of a SHA-256. */
export const DIGEST_BYTES = 32

// A lowercase hex digit's value, or -1 for any other character.
const nibble = (code: number): number =>
  code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1

/**
 * Writes a fingerprint that is a SHA-256 in lowercase hex (64 characters, as HTTP's are) as its 32
 * bytes at `at`, and says so; any other string it leaves alone, writing nothing.
 */
export const packDigest = (fingerprint: string, into: Uint8Array, at: number): boolean => {
  if (fingerprint.length !== DIGEST_BYTES * 2) return false
  for (let i = 0; i < fingerprint.length; i++) if (nibble(fingerprint.charCodeAt(i)) < 0) return false
  for (let i = 0; i < DIGEST_BYTES; i++)
    into[at + i] = (nibble(fingerprint.charCodeAt(2 * i)) << 4) | nibble(fingerprint.charCodeAt(2 * i + 1))
  return true
}

/** Whether the fingerprint is the SHA-256 in lowercase hex whose bytes are at `at`. */
export const sameDigest = (fingerprint: string, bytes: Uint8Array, at: number): boolean => {
  if (fingerprint.length !== DIGEST_BYTES * 2) return false
  for (let i = 0; i < DIGEST_BYTES; i++) {
    const high = nibble(fingerprint.charCodeAt(2 * i))
    const low = nibble(fingerprint.charCodeAt(2 * i + 1))
    if (high < 0 || low < 0 || bytes[at + i] !== ((high << 4) | low)) return false
  }
  return true
}
