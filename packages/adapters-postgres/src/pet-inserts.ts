import type { Pet, PetData } from '@pets/domain'
import { randomUUID } from 'node:crypto'
import { REGISTER_INTENT } from './insert-intents.js'
import type { RunPrepared, RunPreparedAfter, Statement } from './statement.js'

/** The most creations one statement carries; more wait for the next. */
export const MAX_INSERT_BATCH = 256

/**
 * Runs items in batches, one statement per batch and one batch under way at a time: items that
 * arrive meanwhile are gathered, in order, into the next (at most `max`, and only as long as each
 * `fits` with the first). An idle queue sends an item at once, alone. `send` calls `ended` once,
 * when its statement has ended, before it answers the batch's items; `waiting` tells how many
 * items wait for the next batch.
 */
export const batchStatements = <Item>(
  max: number,
  send: (batch: ReadonlyArray<Item>, ended: () => void, waiting: () => number) => void,
  fits: (first: Item, next: Item) => boolean = () => true,
): ((item: Item) => void) => {
  const queue: Array<Item> = []
  // One batch of a process under way at a time: two gathered half as much each, and cost more
  // CPU per creation (ARCHITECTURE.md, "How writes keep paging exactly-once").
  let busy = false
  const waiting = () => queue.length
  const next = () => {
    let size = 1
    while (size < Math.min(max, queue.length) && fits(queue[0]!, queue[size]!)) size++
    busy = true
    send(
      queue.splice(0, size),
      () => {
        busy = false
        if (queue.length > 0) next()
      },
      waiting,
    )
  }
  return (item) => {
    queue.push(item)
    if (!busy) next()
  }
}

type Waiting = {
  readonly pet: PetData
  readonly ok: (pet: Pet) => void
  readonly fail: (error: unknown) => void
}

/** Adds pets, each creation answered with its pet or the error of the insert that carried it. */
export type PetInserts = (pet: PetData, ok: (pet: Pet) => void, fail: (error: unknown) => void) => void

// A row of the batch as `[name, categoryId, status]`: JSON escapes any name, and keeps a category
// id exact up to 2^53 − 1 (the statement reads it as text into an int8).
const asJson = (batch: ReadonlyArray<Waiting>): string =>
  JSON.stringify(batch.map(({ pet }) => [pet.name, pet.categoryId, pet.status]))

const same = (pet: Pet, data: PetData) =>
  pet.name === data.name && pet.categoryId === data.categoryId && pet.status === data.status

// No row at all: the insert found its intent expired (its writer was too slow), and added nothing.
const turnExpired = () =>
  Object.assign(new Error("the insert's turn expired before it began: nothing was added"), { code: '55P03' })

// The inserted rows, given back to their creations: ids follow the order of the batch, so the
// rows sorted by id are the batch's in order; checked, and matched by content if they were not.
const answer = (batch: ReadonlyArray<Waiting>, rows: Array<Pet>) => {
  if (rows.length === 0) return batch.forEach((w) => w.fail(turnExpired()))
  rows.sort((a, b) => a.id - b.id)
  if (rows.length === batch.length && batch.every((w, i) => same(rows[i]!, w.pet)))
    return batch.forEach((w, i) => w.ok(rows[i]!))
  for (const w of batch) {
    const at = rows.findIndex((row) => same(row, w.pet))
    if (at === -1) w.fail(new Error('an insert of pets answered no row for one of its creations'))
    else w.ok(rows.splice(at, 1)[0]!)
  }
}

/** The statements of an insert that keeps its process's intent going (insert-intents.ts). */
export type InsertStatements = {
  /** Claims the intent `$4` of slot `$3`, adds the pets `$2`, and registers `$5` for `$6` ms. */
  readonly insert: Statement<Pet>
  /** Clears the intent `$2` of slot `$1`. */
  readonly release: Statement<unknown>
}

/**
 * The service's own group commit: creations that arrive while an insert is under way go together
 * into the next insert, one statement and one commit for all of them; an idle service still inserts
 * each creation at once, alone. A failed insert fails every creation it carried, and none of them
 * was added (one statement: all or nothing).
 *
 * The intent of each insert (insert-intents.ts) is registered by the insert before it, in the same
 * transaction as that one's pets, while creations keep coming: one statement per batch. The first
 * insert after a pause registers its intent first, on the same connection; the last one's intent,
 * registered for an insert that does not come, is cleared once nothing waits.
 */
export const batchPetInserts = (
  run: RunPreparedAfter,
  runOne: RunPrepared,
  statements: InsertStatements,
  lockTimeout: string,
  intentLifetimeMs: number,
): PetInserts => {
  const slot = randomUUID()
  const lifetime = String(intentLifetimeMs)
  // The intent registered in the slot for the next insert, if one is.
  let live: string | undefined
  const enqueue = batchStatements<Waiting>(MAX_INSERT_BATCH, (batch, ended, waiting) => {
    const claim = live ?? randomUUID()
    const values = [lockTimeout, asJson(batch), slot, claim, randomUUID(), lifetime]
    const done = (error: Error | undefined, rows: Array<Pet>) => {
      live = error === undefined && rows.length > 0 ? values[4]! : undefined
      if (error !== undefined) for (const w of batch) w.fail(error)
      else answer(batch, rows)
      if (live === undefined || waiting() > 0) return ended()
      const released = live
      live = undefined
      // Until it is cleared (or expires), the intent holds listings back from the pets above it.
      runOne(statements.release, [slot, released], () => ended())
    }
    if (live !== undefined) runOne(statements.insert, values, done)
    else run(REGISTER_INTENT, [slot, claim, lifetime], statements.insert, values, done)
  })
  return (pet, ok, fail) => enqueue({ pet, ok, fail })
}
