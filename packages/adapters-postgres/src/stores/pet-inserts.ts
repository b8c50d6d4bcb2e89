import { context, ROOT_CONTEXT, type Span } from '@opentelemetry/api'
import type { Pet, PetData } from '@pets/domain'
import { randomUUID } from 'node:crypto'
import { REGISTER_INTENT } from './insert-intents.js'
import {
  endStatementSpan,
  startStatementSpan,
  type RunPrepared,
  type RunPreparedAfter,
  type SpanTarget,
  type Statement,
} from '../runner/index.js'

/** The most creations one statement carries; more wait for the next. */
export const MAX_INSERT_BATCH = 256

/**
 * Runs items in batches, one statement and one batch under way at a time: items arriving meanwhile go, in
 * order, into the next (at most `max`, while each `fits` the first). `send` calls `ended` once it ended.
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
    // Outside any request's context: each item carries its own span (carry), none is the statement's parent.
    context.with(ROOT_CONTEXT, () =>
      send(
        queue.splice(0, size),
        () => {
          busy = false
          if (queue.length > 0) next()
        },
        waiting,
      ),
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
  readonly span: Span | undefined
}

/**
 * The span of a creation that a batch carries, a child of its request's (the active context, read as it is
 * queued): from its queueing to its batch's end, named by the statement (`INSERT pets`), with the batch's size.
 */
export const carry = (statement: Statement<unknown>): Span | undefined => startStatementSpan(statement, {})

/** Ends the spans of a batch's creations, with the batch's error if it failed, and where it ran. */
export const delivered = (
  batch: ReadonlyArray<{ readonly span: Span | undefined }>,
  error: unknown,
  on?: SpanTarget,
) => {
  for (const { span } of batch) endStatementSpan(span, error, batch.length, on)
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
 * Group commit: creations arriving while an insert is under way go together into the next, one statement for
 * all (ARCHITECTURE.md, 'Made by hand, on purpose', row "insert batching"); a failed insert fails all it
 * carried. Each insert registers the next one's intent (insert-intents.ts); the last one's is cleared.
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
  let live: string | undefined
  const enqueue = batchStatements<Waiting>(MAX_INSERT_BATCH, (batch, ended, waiting) => {
    const claim = live ?? randomUUID()
    const values = [lockTimeout, asJson(batch), slot, claim, randomUUID(), lifetime]
    const done = (error: Error | undefined, rows: Array<Pet>, on?: SpanTarget) => {
      delivered(batch, error, on)
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
  return (pet, ok, fail) => enqueue({ pet, ok, fail, span: carry(statements.insert) })
}

/**
 * The same gathering inside a caller's transaction, where no other session would see an intent
 * before it commits: each batch is one statement that takes the ordering lock alone.
 */
export const batchPetInsertsAlone = (
  run: RunPrepared,
  insert: Statement<Pet>,
  lockTimeout: string,
): PetInserts => {
  const enqueue = batchStatements<Waiting>(MAX_INSERT_BATCH, (batch, ended) =>
    run(insert, [lockTimeout, asJson(batch)], (error, rows, on) => {
      delivered(batch, error, on)
      ended()
      if (error !== undefined) for (const w of batch) w.fail(error)
      else answer(batch, rows)
    }),
  )
  return (pet, ok, fail) => enqueue({ pet, ok, fail, span: carry(insert) })
}
