import type * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'

/** What sharedCheck needs: how often at most to check, and a clock (performance.now unless given). */
export type SharedCheckOptions = {
  readonly everyMs: number
  readonly now?: () => number
}

/**
 * A check (such as `/readyz`'s look at the database) run at most once per `everyMs`, whatever the
 * rate it is asked at, and never two at once: while one runs, every caller gets its answer, also
 * when it runs longer than `everyMs` (a database that does not answer); once it has answered,
 * callers get that answer until `everyMs` after it started. So a flood of probes costs the store
 * one query a second at most, and never a queue of them.
 */
export const sharedCheck = <L>(
  check: () => TaskEither<L, void>,
  { everyMs, now = () => performance.now() }: SharedCheckOptions,
): (() => TaskEither<L, void>) => {
  let latest:
    { readonly startedAt: number; readonly answer: Promise<E.Either<L, void>>; settled: boolean } | undefined
  return () => () => {
    const at = now()
    if (latest === undefined || (latest.settled && at - latest.startedAt >= everyMs)) {
      const entry = { startedAt: at, answer: check()(), settled: false }
      latest = entry
      entry.answer.then(
        () => void (entry.settled = true),
        // A check that throws is a defect; the next caller tries again rather than sharing it.
        () => void (latest === entry && (latest = undefined)),
      )
    }
    return latest.answer
  }
}
