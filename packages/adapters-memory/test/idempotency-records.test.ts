import type { PetId } from '@pets/domain'
import { describe, expect, it } from 'vitest'
import { createIdempotencyRecords, type IdempotencyRecords } from '../src/idempotency-records.js'

const petId = (n: number) => n as PetId
const recordOf = (records: IdempotencyRecords, owner: string, key: string) => {
  const row = records.find(owner, key)
  return row === undefined ? undefined : { petId: records.petIdOf(row), at: records.atOf(row) }
}

// The records as a map of objects, as the store kept them before its columns: what the columns must match.
const model = () => {
  const map = new Map<string, { fingerprint: string; petId: number; at: number }>()
  return {
    find: (owner: string, key: string) => map.get(`${key}\n${owner}`),
    add: (owner: string, key: string, fingerprint: string, id: number, at: number) =>
      void map.set(`${key}\n${owner}`, { fingerprint, petId: id, at }),
    removeBefore: (before: number) => {
      let removed = 0
      for (const [scope, record] of map) if (record.at < before && map.delete(scope)) removed++
      return removed
    },
  }
}

// A small seeded generator (mulberry32), so that a failure comes back with the same seed.
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe('idempotency records', () => {
  it('finds a record by owner and key, and keeps the owners apart', () => {
    const records = createIdempotencyRecords()
    records.add('key-1', 'retry-me', 'f', petId(1), 100)
    records.add('key-2', 'retry-me', 'f', petId(2), 200)
    expect(recordOf(records, 'key-1', 'retry-me')).toEqual({ petId: 1, at: 100 })
    expect(recordOf(records, 'key-2', 'retry-me')).toEqual({ petId: 2, at: 200 })
    expect(records.find('key-3', 'retry-me')).toBeUndefined()
    expect(records.find('key-1', 'Retry-me')).toBeUndefined()
  })

  it('removes the records made before an instant across many chunks, and keeps the rest', () => {
    const records = createIdempotencyRecords()
    for (let i = 0; i < 20_000; i++) records.add('owner', `key ${i}`, 'f', petId(i + 1), i)
    expect(records.removeBefore(12_345)).toBe(12_345)
    expect(records.removeBefore(12_345)).toBe(0)
    expect(records.find('owner', 'key 12344')).toBeUndefined()
    expect(recordOf(records, 'owner', 'key 12345')).toEqual({ petId: 12_346, at: 12_345 })
    // The rows go on after those removed, and the last records are removed too.
    records.add('owner', 'key 0', 'f', petId(20_001), 20_000)
    expect(records.removeBefore(Number.POSITIVE_INFINITY)).toBe(20_000 - 12_345 + 1)
    expect(records.find('owner', 'key 0')).toBeUndefined()
  })

  it('removes the records due when the clock stepped back, and keeps those it should', () => {
    const records = createIdempotencyRecords()
    const ats = [10, 5, 20, 1, 15]
    for (const [i, at] of ats.entries()) records.add('owner', `key ${i}`, 'f', petId(i + 1), at)
    expect(records.removeBefore(11)).toBe(3)
    expect(ats.map((_, i) => records.find('owner', `key ${i}`) !== undefined)).toEqual([
      false,
      false,
      true,
      false,
      true,
    ])
    expect(records.removeBefore(16)).toBe(1)
    expect(records.find('owner', 'key 2')).toBeDefined()
  })

  it('counts a key recorded again once: its earlier row is no record any more', () => {
    const records = createIdempotencyRecords()
    records.add('owner', 'k', 'f1', petId(1), 1)
    records.add('owner', 'k', 'f2', petId(2), 100)
    expect(records.removeBefore(50)).toBe(0)
    expect(recordOf(records, 'owner', 'k')).toEqual({ petId: 2, at: 100 })
    expect(records.removeBefore(101)).toBe(1)
    expect(records.find('owner', 'k')).toBeUndefined()
  })

  it('tells fingerprints apart, SHA-256 hex or any other string', () => {
    const records = createIdempotencyRecords()
    const hex = 'ab'.repeat(31) + '0f'
    records.add('owner', 'hex', hex, petId(1), 1)
    records.add('owner', 'text', 'fingerprint-1', petId(2), 1)
    records.add('owner', 'upper', hex.toUpperCase(), petId(3), 1)
    const row = (key: string) => records.find('owner', key)!
    expect(records.sameFingerprint(row('hex'), hex)).toBe(true)
    expect(records.sameFingerprint(row('hex'), hex.toUpperCase())).toBe(false)
    expect(records.sameFingerprint(row('hex'), 'ab'.repeat(32))).toBe(false)
    expect(records.sameFingerprint(row('hex'), 'fingerprint-1')).toBe(false)
    expect(records.sameFingerprint(row('text'), 'fingerprint-1')).toBe(true)
    expect(records.sameFingerprint(row('text'), hex)).toBe(false)
    expect(records.sameFingerprint(row('upper'), hex.toUpperCase())).toBe(true)
    expect(records.sameFingerprint(row('upper'), hex)).toBe(false)
  })

  it('answers as a map of records does, over random adds and removals, the clock stepping back at times', () => {
    const fingerprints = ['fingerprint-1', 'fingerprint-2', '0'.repeat(64), 'f'.repeat(64)]
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seeded(seed)
      const records = createIdempotencyRecords()
      const expected = model()
      // What each step saw and should have seen, compared once at the end (an expect a step is slow).
      const seen: Array<unknown> = []
      const wanted: Array<unknown> = []
      let now = 0
      for (let step = 0; step < 20_000; step++) {
        const owner = `owner ${Math.floor(random() * 3)}`
        const key = `key ${Math.floor(random() * 5000)}`
        if (random() < 0.002) {
          const before = now - Math.floor(random() * 2000)
          seen.push(['removed', records.removeBefore(before)])
          wanted.push(['removed', expected.removeBefore(before)])
        } else {
          now += random() < 0.01 ? -Math.floor(random() * 500) : Math.floor(random() * 3)
          const fingerprint = fingerprints[Math.floor(random() * fingerprints.length)]!
          records.add(owner, key, fingerprint, petId(step + 1), now)
          expected.add(owner, key, fingerprint, step + 1, now)
        }
        const want = expected.find(owner, key)
        const row = records.find(owner, key)
        seen.push(
          row === undefined
            ? undefined
            : [
                records.petIdOf(row),
                records.atOf(row),
                fingerprints.map((f) => records.sameFingerprint(row, f)),
              ],
        )
        wanted.push(
          want === undefined
            ? undefined
            : [want.petId, want.at, fingerprints.map((f) => f === want.fingerprint)],
        )
      }
      seen.push(records.removeBefore(Number.POSITIVE_INFINITY))
      wanted.push(expected.removeBefore(Number.POSITIVE_INFINITY))
      expect(seen, `seed ${seed}`).toEqual(wanted)
    }
  })
})

describe('idempotency records behind one made while the clock was ahead', () => {
  // A record made at a clock a day ahead, stepped back since, is kept until it expires (the map of objects
  // kept it too); the rows made after it expire on time, and their columns must go with them.
  it('keep no columns of the rows that expired after it', () => {
    const records = createIdempotencyRecords()
    const rows = 10 * 4096
    records.add('owner', 'ahead', 'f', petId(1), 86_400_000)
    for (let i = 0; i < rows; i++) records.add('owner', `key ${i}`, 'f', petId(i + 2), i)
    expect(records.removeBefore(rows)).toBe(rows)
    // The chunk of the early record, and the one the next row goes to.
    expect(records.heldRows()).toBe(2 * 4096)
    expect(recordOf(records, 'owner', 'ahead')).toEqual({ petId: 1, at: 86_400_000 })
    // Rows go on after those dropped, and go too.
    for (let i = 0; i < 5_000; i++) records.add('owner', `later ${i}`, 'f', petId(rows + 2 + i), rows + i)
    expect(recordOf(records, 'owner', 'later 4999')).toEqual({ petId: rows + 5_001, at: rows + 4_999 })
    expect(records.removeBefore(rows + 4_999)).toBe(4_999)
    expect(records.removeBefore(86_400_001)).toBe(2)
    expect(records.heldRows()).toBeLessThanOrEqual(4096)
    records.add('owner', 'ahead', 'f', petId(9), 86_400_002)
    expect(recordOf(records, 'owner', 'ahead')).toEqual({ petId: 9, at: 86_400_002 })
  })
})
