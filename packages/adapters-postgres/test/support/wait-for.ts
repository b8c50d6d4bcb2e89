/**
 * Polls `check` every 10 ms until it holds, and fails with `what` when it still does not after
 * `timeoutMs`: a deadline, never a fixed sleep.
 */
export const waitFor = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Still not true after ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
