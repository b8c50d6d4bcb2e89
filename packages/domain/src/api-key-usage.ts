import type { ApiKeyId } from './api-key.js'

/** How often one API key called one operation (by its operation id), and when it last did. */
export type OperationCalls = {
  readonly keyId: ApiKeyId
  readonly operation: string
  readonly calls: number
  readonly lastCalledAt: Date
}

const keyOf = (c: OperationCalls) => `${c.keyId}\u0000${c.operation}`

/** Merges entries of one key and operation (calls add up, the latest call wins), in key order. */
export const mergeCalls = (entries: ReadonlyArray<OperationCalls>): ReadonlyArray<OperationCalls> => {
  const merged = new Map<string, OperationCalls>()
  for (const entry of entries) {
    const seen = merged.get(keyOf(entry))
    merged.set(
      keyOf(entry),
      seen === undefined
        ? entry
        : {
            ...seen,
            calls: seen.calls + entry.calls,
            lastCalledAt: seen.lastCalledAt >= entry.lastCalledAt ? seen.lastCalledAt : entry.lastCalledAt,
          },
    )
  }
  return [...merged.values()].sort(byKeyThenOperation)
}

/** Orders entries by key id, then operation, comparing code units (what `COLLATE "C"` does for ASCII). */
export const byKeyThenOperation = (a: OperationCalls, b: OperationCalls): number =>
  a.keyId < b.keyId
    ? -1
    : a.keyId > b.keyId
      ? 1
      : a.operation < b.operation
        ? -1
        : a.operation > b.operation
          ? 1
          : 0
