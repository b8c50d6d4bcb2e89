import { describe, expect, it } from 'vitest'
import { mergeCalls, type OperationCalls } from '../src/index.js'

const entry = (keyId: string, operation: string, calls: number, at: string): OperationCalls => ({
  keyId,
  operation,
  calls,
  lastCalledAt: new Date(at),
})

describe('mergeCalls', () => {
  it('adds up the calls of the same key and operation and keeps the latest call', () => {
    expect(
      mergeCalls([
        entry('1', 'getPet', 2, '2026-01-01T00:00:02Z'),
        entry('1', 'getPet', 3, '2026-01-01T00:00:01Z'),
      ]),
    ).toEqual([entry('1', 'getPet', 5, '2026-01-01T00:00:02Z')])
  })

  it('keeps other keys and operations apart, ordered by key id then operation', () => {
    const merged = mergeCalls([
      entry('env-1', 'getPet', 1, '2026-01-01T00:00:00Z'),
      entry('1', 'listPets', 1, '2026-01-01T00:00:00Z'),
      entry('1', 'getPet', 1, '2026-01-01T00:00:00Z'),
    ])
    expect(merged.map((c) => `${c.keyId} ${c.operation}`)).toEqual(['1 getPet', '1 listPets', 'env-1 getPet'])
  })

  it('merges nothing into an empty list', () => {
    expect(mergeCalls([])).toEqual([])
  })
})
