import type { ApiKeyRecord, OperationCalls } from '@pets/domain'
import { describe, expect, it } from 'vitest'
import { usageTable } from '../src/commands/usage-table.js'
import { environmentKeyId } from '../src/environment-keys.js'

// The ids of keys of API_KEYS under an API_KEY_ID_SECRET, as production has one.
const SECRET = 'a-deployment-secret-of-32-chars!'

const record = (id: string, name: string, lastUsedAt: string | null, revoked = false): ApiKeyRecord => ({
  id,
  name,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  revokedAt: revoked ? new Date('2026-06-01T00:00:00Z') : null,
  lastUsedAt: lastUsedAt === null ? null : new Date(lastUsedAt),
})
const calls = (keyId: string, operation: string, n: number, at: string): OperationCalls => ({
  keyId,
  operation,
  calls: n,
  lastCalledAt: new Date(at),
})

describe('the table of keys usage', () => {
  it('lists every key with its last use and its calls of deprecated operations, heaviest callers first', () => {
    const lines = usageTable(
      [record('1', 'billing', '2026-11-20T00:00:00Z'), record('2', 'old app', null, true)],
      [
        calls('1', 'listPets', 9, '2026-11-21T00:00:00Z'),
        calls(environmentKeyId('k1', SECRET), 'getPet', 3, '2026-11-22T10:00:00Z'),
        calls(environmentKeyId('k1', SECRET), 'listPets', 1, '2026-11-22T11:00:00Z'),
        calls(environmentKeyId('k2', SECRET), 'getPet', 2, '2026-11-22T09:00:00Z'),
        calls('2', 'getPet', 1, '2026-05-01T00:00:00Z'),
      ],
      ['getPet'],
      new Map([[environmentKeyId('k1', SECRET), 'API_KEYS #1']]),
    )
    expect(lines.map((line) => line.split(/ {2,}/))).toEqual([
      ['ID', 'NAME', 'LAST USED', 'getPet CALLS', 'LAST getPet'],
      [
        environmentKeyId('k1', SECRET),
        'API_KEYS #1',
        '2026-11-22T11:00:00.000Z',
        '3',
        '2026-11-22T10:00:00.000Z',
      ],
      [
        environmentKeyId('k2', SECRET),
        'a key of API_KEYS',
        '2026-11-22T09:00:00.000Z',
        '2',
        '2026-11-22T09:00:00.000Z',
      ],
      ['2', 'old app (revoked)', '2026-05-01T00:00:00.000Z', '1', '2026-05-01T00:00:00.000Z'],
      ['1', 'billing', '2026-11-21T00:00:00.000Z', '0', '-'],
    ])
  })

  it('shows a key that was never used with dashes and no calls', () => {
    expect(usageTable([record('5', 'new', null)], [], ['getPet'])[1]?.split(/ {2,}/)).toEqual([
      '5',
      'new',
      '-',
      '0',
      '-',
    ])
  })
})
