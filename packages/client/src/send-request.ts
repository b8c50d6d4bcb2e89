import { context, type Context } from '@opentelemetry/api'
import * as E from 'fp-ts/lib/Either.js'
import {
  aborted,
  attemptSignal,
  responseUnlessAborted,
  textUnlessAborted,
  waitUnlessAborted,
  type Sleep,
} from './abortable.js'
import type { Aborted, NetworkFailure } from './client-errors.js'
import { MAX_RESPONSE_BYTES, retryAfterSeconds, type ReadResponse } from './decode-response.js'
import type { RetryBounds } from './retry-bounds.js'
import { endAttempt, startAttempt } from './trace-attempt.js'

/** How freely a request may be sent again: `safe` (GET), `keyed` (POST with an Idempotency-Key), `once`. */
export type Repeatable = 'safe' | 'keyed' | 'once'

/** What sends requests: fetch, a sleep between attempts, and the bounds. */
export type Transport = {
  readonly fetch: typeof globalThis.fetch
  readonly sleep: Sleep
  readonly timeoutMs: number
  readonly retry: RetryBounds
}

/** What one attempt ends with: an answer read in full, or none. */
type Outcome = E.Either<NetworkFailure | Aborted, ReadResponse>

const networkFailure = (error: unknown, url: string, timedOutAfter: number | undefined): NetworkFailure => {
  const e = error as { message?: unknown; cause?: { code?: unknown; message?: unknown } }
  const reason =
    timedOutAfter !== undefined
      ? `no answer within ${timedOutAfter} ms`
      : [e.message, e.cause?.code ?? e.cause?.message].filter((part) => typeof part === 'string').join(': ')
  const origin = new URL(url).origin
  return { _tag: 'NetworkFailure', origin, reason: reason === '' ? String(error) : reason, cause: error }
}

const isAbortError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError'

type Attempted = { readonly url: string; readonly number: number; readonly timedOutAfter: number | undefined }

// The caller's abort, through its signal or its fetch's own (an AbortError), is no network failure.
const failureOf = (error: unknown, caller: AbortSignal | undefined, attempted: Attempted) => {
  const { url, number, timedOutAfter } = attempted
  if (caller?.aborted) return aborted(caller.reason, `during attempt ${number}`)
  if (timedOutAfter === undefined && isAbortError(error))
    return aborted(error, `during attempt ${number}, by its fetch`)
  return networkFailure(error, url, timedOutAfter)
}

/** A request as the client sends it: its headers are a plain record, so that `traceparent` can join them. */
export type Sent = Omit<RequestInit, 'headers'> & { readonly headers: Record<string, string> }

// Each attempt is a span of its own when the caller traces: a retry is seen as one.
const attempt = async (
  transport: Transport,
  url: string,
  init: Sent,
  resendCount: number,
  caller: AbortSignal | undefined,
  parent: Context,
): Promise<Outcome> => {
  const traced = startAttempt(init.method ?? 'GET', url, resendCount, parent)
  const headers = traced === undefined ? init.headers : { ...init.headers, ...traced.headers }
  const { signal, release } = attemptSignal(transport.timeoutMs, caller)
  let outcome: Outcome
  try {
    const fetching = transport.fetch(url, {
      ...init,
      headers,
      // The interface has no 3xx. Followed, a redirect would decode another origin's answer (or send it a
      // POST's body again); not followed, the 3xx is an UndecodableResponse naming its Location.
      redirect: 'manual',
      signal,
    })
    // Raced against the signal: a fetch of the caller's own may not listen to it, and must not hang the call.
    const res = await responseUnlessAborted(fetching, signal)
    outcome = E.right({
      status: res.status,
      headers: res.headers,
      text: await textUnlessAborted(res, signal, MAX_RESPONSE_BYTES),
    })
  } catch (error) {
    const timedOutAfter = signal.aborted ? transport.timeoutMs : undefined
    outcome = E.left(failureOf(error, caller, { url, number: resendCount + 1, timedOutAfter }))
  } finally {
    release()
  }
  endAttempt(traced, outcome)
  return outcome
}

// CONTRACT: 429 and 503 carry Retry-After in whole seconds. A 429 did nothing, so anything may repeat
// it; a 503 or a lost response may hide an added pet, so a POST repeats them (or waits out a 409) only keyed.
// A 502 or 504 is a gateway's (a balancer's, a proxy's) that got no answer from the service, as during a
// rolling deploy: a lost response.
const delayBeforeRetry = (
  outcome: Outcome,
  repeatable: Repeatable,
  defaultDelayMs: number,
): number | undefined => {
  if (E.isLeft(outcome))
    return outcome.left._tag === 'Aborted' || repeatable === 'once' ? undefined : defaultDelayMs
  const asked = retryAfterSeconds(outcome.right.headers)
  const wait = asked === undefined ? defaultDelayMs : asked * 1000
  switch (outcome.right.status) {
    case 429:
      return wait
    case 502:
    case 503:
    case 504:
      return repeatable === 'once' ? undefined : wait
    case 409:
      return repeatable === 'keyed' ? defaultDelayMs : undefined
    default:
      return undefined
  }
}

/**
 * Sends a request, and again while the answer says to retry within `maxAttempts` and `maxTotalWaitMs`;
 * the last outcome is returned as it is, so a 503 that outlasts the bounds reaches the caller. Once
 * `signal` aborts, in an attempt or in a wait, the outcome is Aborted and nothing more is sent.
 */
export const sendRequest = async (
  transport: Transport,
  url: string,
  init: Sent,
  repeatable: Repeatable,
  signal: AbortSignal | undefined,
): Promise<Outcome> => {
  const { maxAttempts, maxTotalWaitMs, defaultDelayMs } = transport.retry
  // The caller's context, read as the call begins: each attempt's span is its child, also after the awaits.
  const parent = context.active()
  let waited = 0
  for (let attempts = 1; ; attempts++) {
    if (signal?.aborted)
      return E.left(
        aborted(
          signal.reason,
          attempts === 1
            ? 'before anything was sent'
            : `while waiting to retry, after attempt ${attempts - 1}`,
        ),
      )
    const outcome = await attempt(transport, url, init, attempts - 1, signal, parent)
    const delay = delayBeforeRetry(outcome, repeatable, defaultDelayMs)
    if (delay === undefined || attempts >= maxAttempts || waited + delay > maxTotalWaitMs) return outcome
    await waitUnlessAborted(transport.sleep, delay, signal)
    waited += delay
  }
}
