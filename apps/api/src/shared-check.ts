import type * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'

/** How often at most to ask, and a clock (performance.now unless given). */
export type SharedCheckOptions = {
  readonly everyMs: number
  readonly now?: () => number
  /** Whether a rejection is shared as the answer is (true unless given), or asked again at once. */
  readonly shareFailures?: boolean
}

/**
 * `ask`, run at most once per `everyMs` and never twice at once: callers share the running answer, then the
 * settled one until `everyMs` after it started; a rejection is shared as one (unless `shareFailures` is off).
 */
export const sharedAnswer = <T>(
  ask: () => Promise<T>,
  { everyMs, now = () => performance.now(), shareFailures = true }: SharedCheckOptions,
): (() => Promise<T>) => {
  let latest: { readonly startedAt: number; readonly answer: Promise<T>; settled: boolean } | undefined
  return () => {
    const at = now()
    if (latest === undefined || (latest.settled && at - latest.startedAt >= everyMs)) {
      const entry = { startedAt: at, answer: ask(), settled: false }
      latest = entry
      entry.answer.then(
        () => void (entry.settled = true),
        () => {
          entry.settled = true
          if (!shareFailures && latest === entry) latest = undefined
        },
      )
    }
    return latest.answer
  }
}

/**
 * A check (such as `/readyz`'s) shared as sharedAnswer shares an answer: a flood of probes costs the store
 * one query a second at most. A check that throws is a defect: the next caller tries again.
 */
export const sharedCheck = <L>(
  check: () => TaskEither<L, void>,
  options: Omit<SharedCheckOptions, 'shareFailures'>,
): (() => TaskEither<L, void>) => {
  const shared = sharedAnswer<E.Either<L, void>>(() => check()(), { ...options, shareFailures: false })
  return () => shared
}
