import type { Pet, PetData } from '@pets/domain'
import { intentSlots, REGISTER_INTENT } from './insert-intents.js'
import type { RunPreparedAfter, Statement } from './statement.js'

/** The most creations one statement carries; more wait for the next. */
export const MAX_INSERT_BATCH = 256

/**
 * Runs items in batches, one statement per batch and at most `inFlight` batches under way at a
 * time: items that arrive meanwhile are gathered, in order, into the next (at most `max`, and only
 * as long as each `fits` with the first). An idle queue sends an item at once, alone. `send` calls
 * `ended` once, when its statement has ended, before it answers the batch's items.
 */
export const batchStatements = <Item>(
  max: number,
  send: (batch: ReadonlyArray<Item>, ended: () => void) => void,
  fits: (first: Item, next: Item) => boolean = () => true,
  inFlight = 1,
): ((item: Item) => void) => {
  const queue: Array<Item> = []
  let busy = 0
  const next = () => {
    let size = 1
    while (size < Math.min(max, queue.length) && fits(queue[0]!, queue[size]!)) size++
    busy++
    send(queue.splice(0, size), () => {
      busy--
      if (queue.length > 0 && busy < inFlight) next()
    })
  }
  return (item) => {
    queue.push(item)
    if (busy < inFlight) next()
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

/**
 * The service's own group commit: creations that arrive while inserts are under way go together
 * into the next insert, one statement and one commit for all of them; an idle service still inserts
 * each creation at once, alone. Each insert registers its intent first, on the same connection
 * (insert-intents.ts), so inserts of every process commit in parallel. A failed insert fails every
 * creation it carried, and none of them was added (one statement: all or nothing).
 */
export const batchPetInserts = (
  run: RunPreparedAfter,
  insert: Statement<Pet>,
  lockTimeout: string,
  intentLifetimeMs: number,
  inFlight: number,
): PetInserts => {
  const slots = intentSlots(inFlight)
  const enqueue = batchStatements<Waiting>(
    MAX_INSERT_BATCH,
    (batch, ended) => {
      const intent = slots.take(intentLifetimeMs)
      const [slot, token] = intent
      run(REGISTER_INTENT, intent, insert, [lockTimeout, asJson(batch), slot, token], (error, rows) => {
        slots.give(slot)
        ended()
        if (error !== undefined) for (const w of batch) w.fail(error)
        else answer(batch, rows)
      })
    },
    undefined,
    inFlight,
  )
  return (pet, ok, fail) => enqueue({ pet, ok, fail })
}
