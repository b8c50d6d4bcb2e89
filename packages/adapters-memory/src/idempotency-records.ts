import type { PetId } from '@pets/domain'
import { packDigest, sameDigest, DIGEST_BYTES } from './fingerprint-digest.js'

// Rows per chunk: a chunk's columns are made at once and dropped once the sweep has passed all its rows.
const CHUNK = 4096

type Chunk = {
  readonly petIds: Float64Array
  /** When each record was made, in ms since the epoch. */
  readonly ats: Float64Array
  /** The fingerprints that are a SHA-256 in lowercase hex (as HTTP's are), as their 32 bytes. */
  readonly digests: Uint8Array
  /** Any other fingerprint, made when a row first needs it. */
  fingerprints: Array<string | undefined> | undefined
  /** A row's key, `undefined` once the row is dead (removed, or its key recorded again). */
  readonly keys: Array<string | undefined>
  /** The map of the row's owner, to remove the row from. */
  readonly scopes: Array<Map<string, number> | undefined>
  /** How many of its rows are live: at none, once full, it goes. */
  live: number
}

// Each owner's keys are in SHARDS maps, by a hash of the key: a map that grows copies all its entries at
// once (120 ms for a million keys), so that it is a 64th of them.
const SHARDS = 64
const shardOf = (key: string): number => {
  let hash = 0
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0
  return hash & (SHARDS - 1)
}

const newChunk = (): Chunk => ({
  petIds: new Float64Array(CHUNK),
  ats: new Float64Array(CHUNK),
  digests: new Uint8Array(CHUNK * DIGEST_BYTES),
  fingerprints: undefined,
  keys: new Array<string | undefined>(CHUNK).fill(undefined),
  scopes: new Array<Map<string, number> | undefined>(CHUNK).fill(undefined),
  live: 0,
})

/**
 * The records of idempotent creations, one row each, in the order they were made. No object a record:
 * columns of rows (numbers in typed arrays, the fingerprint's bytes, the key the client sent) and, for
 * each owner, maps from key to row.
 */
export type IdempotencyRecords = {
  /** The row of the owner's record of `key`, if there is one. */
  readonly find: (owner: string, key: string) => number | undefined
  /** When the record of the row was made, in ms since the epoch. */
  readonly atOf: (row: number) => number
  readonly petIdOf: (row: number) => PetId
  readonly sameFingerprint: (row: number, fingerprint: string) => boolean
  /** Records a creation, in place of the owner's record of the same key if there is one. */
  readonly add: (owner: string, key: string, fingerprint: string, petId: PetId, at: number) => void
  /** Removes every record made before `before` (ms since the epoch), and says how many. */
  readonly removeBefore: (before: number) => number
  /** How many rows the columns hold, live or not (whole chunks): what a sweep may walk and memory keeps. */
  readonly heldRows: () => number
}

export const createIdempotencyRecords = (): IdempotencyRecords => {
  const byOwner = new Map<string, Array<Map<string, number>>>()
  // Undefined where every row of a chunk is dead behind a live one (a record made while the clock was ahead).
  const chunks: Array<Chunk | undefined> = []
  let firstChunk = 0 // chunks[0] holds rows firstChunk × CHUNK and on
  let head = 0 // every row before it is dead
  let tail = 0 // the next row
  // Every live row was made at or after the live row before it: a sweep stops at the first one it keeps.
  // A clock stepping back clears it until a sweep has checked every row.
  let ordered = true
  let lastAt = -Infinity

  // The chunk of a row: of a live row, always there.
  const chunkAt = (row: number) => chunks[Math.floor(row / CHUNK) - firstChunk]
  const chunkOf = (row: number) => chunkAt(row)!
  const kill = (chunk: Chunk, slot: number) => {
    chunk.live--
    chunk.keys[slot] = undefined
    chunk.scopes[slot] = undefined
    if (chunk.fingerprints !== undefined) chunk.fingerprints[slot] = undefined
  }
  // Removes the row if it is live and made before `before`; says whether it did.
  const removeIfBefore = (row: number, before: number): boolean => {
    const chunk = chunkAt(row)
    const slot = row % CHUNK
    const key = chunk?.keys[slot]
    if (key === undefined || !(chunk!.ats[slot]! < before)) return false
    chunk!.scopes[slot]!.delete(key)
    kill(chunk!, slot)
    return true
  }
  const isLive = (row: number) => chunkAt(row)?.keys[row % CHUNK] !== undefined
  // The whole queue, when rows may be out of order: removes what is due, and checks the order again.
  const sweepAll = (before: number): number => {
    let removed = 0
    let previous = -Infinity
    let inOrder = true
    for (let row = head; row < tail; row++) {
      // A chunk gone: its rows were all dead.
      if (chunkAt(row) === undefined) row = (Math.floor(row / CHUNK) + 1) * CHUNK - 1
      else if (removeIfBefore(row, before)) removed++
      else if (isLive(row)) {
        const at = chunkOf(row).ats[row % CHUNK]!
        if (at < previous) inOrder = false
        previous = at
      }
    }
    ordered = inOrder
    lastAt = previous
    while (head < tail && !isLive(head)) head++
    return removed
  }

  return {
    find: (owner, key) => byOwner.get(owner)?.[shardOf(key)]!.get(key),
    atOf: (row) => chunkOf(row).ats[row % CHUNK]!,
    petIdOf: (row) => chunkOf(row).petIds[row % CHUNK]! as PetId,
    sameFingerprint: (row, fingerprint) => {
      const chunk = chunkOf(row)
      const slot = row % CHUNK
      const text = chunk.fingerprints?.[slot]
      return text === undefined
        ? sameDigest(fingerprint, chunk.digests, slot * DIGEST_BYTES)
        : text === fingerprint
    },
    add: (owner, key, fingerprint, petId, at) => {
      let shards = byOwner.get(owner)
      if (shards === undefined) byOwner.set(owner, (shards = Array.from({ length: SHARDS }, () => new Map())))
      const scope = shards[shardOf(key)]!
      const previous = scope.get(key)
      if (previous !== undefined) kill(chunkOf(previous), previous % CHUNK)
      if (tail === (firstChunk + chunks.length) * CHUNK) chunks.push(newChunk())
      const chunk = chunkOf(tail)
      const slot = tail % CHUNK
      chunk.petIds[slot] = petId
      chunk.ats[slot] = at
      chunk.keys[slot] = key
      chunk.scopes[slot] = scope
      chunk.live++
      if (!packDigest(fingerprint, chunk.digests, slot * DIGEST_BYTES))
        (chunk.fingerprints ??= new Array<string | undefined>(CHUNK).fill(undefined))[slot] = fingerprint
      scope.set(key, tail++)
      if (at < lastAt) ordered = false
      else lastAt = at
    },
    heldRows: () => chunks.reduce((rows, chunk) => (chunk === undefined ? rows : rows + CHUNK), 0),
    removeBefore: (before) => {
      let removed = 0
      if (!ordered) removed = sweepAll(before)
      else
        for (; head < tail; head++) {
          if (chunkAt(head) === undefined) head = (Math.floor(head / CHUNK) + 1) * CHUNK - 1
          else if (removeIfBefore(head, before)) removed++
          else if (isLive(head)) break
        }
      // A chunk whose rows are all dead goes, one behind a live row too (but the one the next row goes to).
      const filling = Math.floor(tail / CHUNK) - firstChunk
      for (let i = 0; i < chunks.length && i < filling; i++) if (chunks[i]?.live === 0) chunks[i] = undefined
      while (chunks.length > 0 && chunks[0] === undefined) {
        chunks.shift()
        firstChunk++
      }
      head = Math.max(head, firstChunk * CHUNK)
      return removed
    },
  }
}
