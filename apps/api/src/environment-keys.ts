import type { TrustedApiKey } from '@pets/domain'
import { createHmac } from 'node:crypto'

/**
 * What may name a key of API_KEYS (`NAME:KEY`): a letter, then letters, digits, `_` or `-`, 64 at
 * most. A name starts with a letter so that its id (`env-NAME`) is never a numbered one (`env-3`).
 */
export const KEY_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

/** One entry of API_KEYS: the key, and its name when the entry gave one. */
export type EnvironmentKeyEntry = { readonly key: string; readonly name?: string }

/**
 * Reads one entry of API_KEYS: `NAME:KEY` when it holds a colon, else `KEY`; undefined when the part before
 * the colon is no name. Never says which part was wrong: the entry is a secret.
 */
export const parseKeyEntry = (entry: string): EnvironmentKeyEntry | undefined => {
  const colon = entry.indexOf(':')
  if (colon === -1) return { key: entry }
  const name = entry.slice(0, colon)
  const key = entry.slice(colon + 1)
  return KEY_NAME.test(name) && key !== '' ? { key, name } : undefined
}

/**
 * The id of an unnamed API_KEYS key under API_KEY_ID_SECRET: `env-` and 12 hex digits of HMAC-SHA256, which
 * tell nothing about the key, yet stay the key's wherever it is in the list.
 */
export const environmentKeyId = (key: string, secret: string): string =>
  `env-${createHmac('sha256', secret).update(key, 'utf8').digest('hex').slice(0, 12)}`

/**
 * The keys of API_KEYS as a storage trusts them, each with a public id (a `/metrics` label, in logs and rows)
 * never derived from the key alone: `env-NAME`, environmentKeyId's with API_KEY_ID_SECRET, else `env-` and
 * the entry's place from 1 (refused in production). Entries that are not valid are left out.
 */
export const environmentKeys = (
  entries: ReadonlyArray<string>,
  secret?: string,
): ReadonlyArray<TrustedApiKey> =>
  entries.flatMap((entry, i) => {
    const parsed = parseKeyEntry(entry)
    if (parsed === undefined) return []
    const { key, name } = parsed
    if (name !== undefined) return [{ key, name, id: `env-${name}` }]
    const id = secret === undefined ? `env-${i + 1}` : environmentKeyId(key, secret)
    return [{ key, name: `API_KEYS #${i + 1}`, id }]
  })
