import type { ApiKeyRecord } from '@pets/domain'
import type { ApiKeyRow } from '../runner/index.js'

// The rows of api_keys as the key store reads and names them.

const INT8_MAX = 9223372036854775807n
/**
 * Whether `id` can name a stored key: ids are int8 as decimal strings; anything else names no key, and must
 * not reach the SQL as a value PostgreSQL would refuse with an error.
 */
export const isKeyId = (id: string): boolean => /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= INT8_MAX

export const recordColumns = ['id', 'name', 'created_at', 'revoked_at', 'last_used_at'] as const
export const toRecord = (row: Pick<ApiKeyRow, (typeof recordColumns)[number]>): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
})
