import { sha256Hex, type KnownApiKey } from '@pets/adapters-memory'

/**
 * The id of a key from API_KEYS: derived from its digest, not its position, so that reordering
 * API_KEYS, or giving processes their keys in another order, keeps each key's idempotency records
 * and usage counts its own. Twelve hex digits of SHA-256 say nothing useful about a real key.
 */
export const environmentKeyId = (key: string): string => `env-${sha256Hex(key).slice(0, 12)}`

/** The keys of API_KEYS as the in-memory key store takes them. */
export const environmentKeys = (
  keys: ReadonlyArray<string>,
): ReadonlyArray<KnownApiKey & { readonly id: string }> =>
  keys.map((key, i) => ({ key, name: `API_KEYS #${i + 1}`, id: environmentKeyId(key) }))
