/** The bounds of the client's retries; each call of an operation has its own budget. Undefined is the default. */
export type RetryOptions = {
  /** Attempts in all, the first included; 1 turns retries off. Default 3. */
  readonly maxAttempts?: number | undefined
  /** The longest the client waits in all between the attempts of one call: 0 to 2147483647 ms. Default 10000. */
  readonly maxTotalWaitMs?: number | undefined
  /** The wait when no Retry-After came (a network failure, a 409): 0 to 2147483647 ms. Default 1000. */
  readonly defaultDelayMs?: number | undefined
}

/** The bounds with their defaults, as the client keeps them. */
export type RetryBounds = { readonly [K in keyof RetryOptions]-?: number }

// setTimeout's largest delay: past it a timer fires after 1 ms, so an attempt would time out at once. Every
// wait is at most maxTotalWaitMs, so bounding it keeps a long Retry-After from becoming an instant retry.
const MAX_TIMER_MS = 2 ** 31 - 1

/** The timeout of each attempt with its default; one no timer can keep is a bug of the caller, thrown. */
export const checkedTimeoutMs = (timeoutMs = 30_000): number => {
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS)
    throw new RangeError(`timeoutMs must be an integer from 1 to ${MAX_TIMER_MS} (ms), not ${timeoutMs}`)
  return timeoutMs
}

/** The bounds with their defaults; a bound that makes no sense is a bug of the caller, thrown. */
export const retryBounds = ({
  maxAttempts = 3,
  maxTotalWaitMs = 10_000,
  defaultDelayMs = 1_000,
}: RetryOptions = {}): RetryBounds => {
  // Defaults in the pattern, not spread under the options: a key given as undefined (plain JavaScript
  // does) would override them.
  const bounds = { maxAttempts, maxTotalWaitMs, defaultDelayMs }
  if (!Number.isSafeInteger(bounds.maxAttempts) || bounds.maxAttempts < 1)
    throw new RangeError(`retry.maxAttempts must be an integer of at least 1, not ${bounds.maxAttempts}`)
  for (const key of ['maxTotalWaitMs', 'defaultDelayMs'] as const)
    if (!(bounds[key] >= 0 && bounds[key] <= MAX_TIMER_MS))
      throw new RangeError(`retry.${key} must be from 0 to ${MAX_TIMER_MS} (ms), not ${bounds[key]}`)
  return bounds
}
