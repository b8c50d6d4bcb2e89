/** Asks `check` every `intervalMs` until it is true; throws, naming `what`, after `timeoutMs`. */
export const waitUntil = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
