import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type Pet,
} from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'

/** What an idempotent creation is answered: its pet, or why not. */
export type Answer = E.Either<IdempotencyKeyInUse | IdempotencyKeyReused, Pet>

export const IN_USE: Answer = E.left(idempotencyKeyInUse())
export const REUSED: Answer = E.left(idempotencyKeyReused())

/** How a creation ended: what its statement said of it, with its answer, or the error that failed it. */
export type Ending =
  | { readonly outcome: 'created' | 'replayed' | 'reused' | 'in_use'; readonly answer: Answer }
  | { readonly outcome: 'failed'; readonly error: unknown }

/** A creation whose key was queued or under way in this process when it came. */
export type Repeat = {
  readonly fingerprint: string
  readonly ok: (answer: Answer) => void
  readonly fail: (error: unknown) => void
  /** Starts it as a creation of its own. */
  readonly again: () => void
}

// CONTRACT: 409 for a retry while the first is still running, never for a replay of a finished one (the
// memory adapter answers the same).
const settle = (repeat: Repeat, fingerprint: string, ending: Ending) => {
  switch (ending.outcome) {
    // The first was adding the pet (here, or in another instance) while the repeat came.
    case 'created':
    case 'in_use':
      return repeat.ok(IN_USE)
    // A record was there all along: the repeat is answered from it as its own statement would be.
    case 'replayed':
      return repeat.ok(repeat.fingerprint === fingerprint ? ending.answer : REUSED)
    case 'reused':
      return repeat.fingerprint === fingerprint ? repeat.ok(REUSED) : repeat.again()
    // As its own statement would have: its store call decides whether to try again.
    case 'failed':
      return repeat.fail(ending.error)
  }
}

/**
 * The keys of this process's creations queued or under way, each with the repeats that came meanwhile. A
 * repeat runs no statement: it learns how the first ended, which tells it what its own statement would
 * have found (the record, or a creation still running when it came).
 */
export const repeatsUnderWay = () => {
  const underWay = new Map<string, Array<Repeat>>()
  return {
    /** Whether `key` is under way: then `repeat` waits for it; else the key is under way from now on. */
    waits: (key: string, repeat: Repeat): boolean => {
      const repeats = underWay.get(key)
      if (repeats !== undefined) repeats.push(repeat)
      else underWay.set(key, [])
      return repeats !== undefined
    },
    /**
     * The creation of `key` with `fingerprint` ended: its key is free (answering it may start it again, a
     * retry), and the function returned answers its repeats, to be called once it is answered.
     */
    ended: (key: string, fingerprint: string, ending: Ending) => {
      const repeats = underWay.get(key) ?? []
      underWay.delete(key)
      return () => {
        for (const repeat of repeats) settle(repeat, fingerprint, ending)
      }
    },
  }
}
