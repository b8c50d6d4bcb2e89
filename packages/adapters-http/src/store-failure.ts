import type { StoreFailure } from './operations-endpoints.js'
import type { HttpContext } from './request-state.js'

// The error's message: what a line may say of an expected failure (its stack says nothing an operator acts on).
const causeOf = (cause: unknown): string | null => {
  if (cause === undefined || cause === null) return null
  if (typeof cause === 'object' && typeof (cause as { message?: unknown }).message === 'string')
    return (cause as { message: string }).message
  return String(cause)
}

/**
 * What the line of a request whose store could not serve it says of that failure (sendProblem noted the
 * StoreUnavailable): its `details` (the call, a SQLSTATE…) and the cause's message, so that the line alone
 * tells why it was answered 503, or why a client that left got no answer. Undefined for any other request,
 * and for one whose 503 a defect turned into a 500 (its own line says so). An outage is told by the store's
 * own lines, once, not by a line for each request it failed.
 */
export const storeFailureOf = (ctx: HttpContext, aborted: boolean): StoreFailure | undefined => {
  const failure = ctx.state.unavailable
  if (failure === undefined || (!aborted && ctx.status !== 503)) return undefined
  return { ...failure.details, cause: causeOf(failure.cause) }
}
