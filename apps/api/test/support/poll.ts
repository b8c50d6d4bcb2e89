/**
 * Checks `check` every `everyMs` until it holds, and fails naming `what` when it still does not
 * after `timeoutMs`: a deadline, never a fixed sleep.
 */
export const pollUntil = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 25,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** Resolves at `at` (a Date.now() instant), at once if it has passed. */
export const sleepUntil = (at: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())))
