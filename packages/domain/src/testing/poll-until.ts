/** Checks `check` every 10 ms until it holds; fails naming `what` after `timeoutMs`, never sleeps blind. */
export const pollUntil = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
