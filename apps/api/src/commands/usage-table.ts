import type { ApiKeyRecord, OperationCalls } from '@pets/domain'
import { alignColumns } from './columns.js'

const date = (d: Date | null | undefined) => (d === null || d === undefined ? '-' : d.toISOString())
const latest = (dates: ReadonlyArray<Date | null>): Date | null =>
  dates.reduce<Date | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null)

// Keys of API_KEYS have no record: named as this process's API_KEYS names them, when it has them.
const nameOf = (
  id: string,
  record: ApiKeyRecord | undefined,
  environmentNames: ReadonlyMap<string, string>,
) =>
  record === undefined
    ? (environmentNames.get(id) ?? (/^env-[0-9a-f]{12}$/.test(id) ? 'a key of API_KEYS' : '?'))
    : record.revokedAt === null
      ? record.name
      : `${record.name} (revoked)`

/**
 * The lines of `keys usage`: per key, its last use and its calls of each deprecated operation,
 * the heaviest callers of deprecated operations first. Keys from API_KEYS appear once they called.
 */
export const usageTable = (
  records: ReadonlyArray<ApiKeyRecord>,
  usage: ReadonlyArray<OperationCalls>,
  deprecated: ReadonlyArray<string>,
  environmentNames: ReadonlyMap<string, string> = new Map(),
): Array<string> => {
  const ids = [...new Set([...records.map((r) => r.id), ...usage.map((u) => u.keyId)])]
  const rows = ids.map((id) => {
    const record = records.find((r) => r.id === id)
    const calls = usage.filter((u) => u.keyId === id)
    const of = (operation: string) => calls.find((u) => u.operation === operation)
    return {
      deprecatedCalls: deprecated.reduce((sum, op) => sum + (of(op)?.calls ?? 0), 0),
      cells: [
        id,
        nameOf(id, record, environmentNames),
        date(latest([record?.lastUsedAt ?? null, ...calls.map((u) => u.lastCalledAt)])),
        ...deprecated.flatMap((op) => [String(of(op)?.calls ?? 0), date(of(op)?.lastCalledAt)]),
      ],
    }
  })
  rows.sort((a, b) => b.deprecatedCalls - a.deprecatedCalls)
  const table = [
    ['ID', 'NAME', 'LAST USED', ...deprecated.flatMap((op) => [`${op} CALLS`, `LAST ${op}`])],
    ...rows.map((r) => r.cells),
  ]
  return alignColumns(table)
}
