import type { Aborted } from './client-errors.js'

/** How the client waits between attempts: `ms`, or less once `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** The caller's abort; `when` says how far the call had gone. */
export const aborted = (cause: unknown, when: string): Aborted => ({
  _tag: 'Aborted',
  reason: `aborted ${when}`,
  cause,
})

/**
 * One attempt's signal: aborted by the caller's signal, or by `timeoutMs` with a TimeoutError. `release`
 * it when the attempt is over. Not AbortSignal.any: on Node 20 a long-lived signal (a service's shutdown
 * signal, passed to each call) keeps a record of every signal made from it (nodejs/node#54614, #55351).
 */
export const attemptSignal = (
  timeoutMs: number,
  caller: AbortSignal | undefined,
): { readonly signal: AbortSignal; readonly release: () => void } => {
  const controller = new AbortController()
  const timeout = () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'))
  const timer = setTimeout(timeout, timeoutMs)
  timer.unref() // as AbortSignal.timeout's: an attempt in flight keeps the process alive through its socket
  const onAbort = () => controller.abort(caller?.reason)
  if (caller?.aborted) onAbort()
  else caller?.addEventListener('abort', onAbort, { once: true })
  const release = () => {
    clearTimeout(timer)
    caller?.removeEventListener('abort', onAbort)
  }
  return { signal: controller.signal, release }
}

/** The default sleep: a timer, cleared when `signal` aborts. */
export const sleepFor: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    if (signal?.aborted) done()
    else signal?.addEventListener('abort', done, { once: true })
  })

/** Waits with `sleep` until `ms` have passed or `signal` aborts, even when `sleep` does not listen to it. */
export const waitUnlessAborted = async (sleep: Sleep, ms: number, signal: AbortSignal | undefined) => {
  if (signal === undefined) return sleep(ms)
  if (signal.aborted) return
  let onAbort = (): void => {}
  const abort = new Promise<void>((resolve) => {
    onAbort = () => resolve()
    signal.addEventListener('abort', onAbort, { once: true })
  })
  // A sleep that rejects on abort (as node:timers/promises' does) ends the wait as the abort does.
  const slept = sleep(ms, signal).catch((error: unknown) => {
    if (!signal.aborted) throw error
  })
  try {
    await Promise.race([slept, abort])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

const ignore = () => {}

/**
 * The response `fetching` gives, or once `signal` aborts a rejection with its reason, even from a fetch
 * that does not listen to it; a response that comes after has its body cancelled, a failure is dropped.
 */
export const responseUnlessAborted = (fetching: Promise<Response>, signal: AbortSignal): Promise<Response> =>
  new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason)
      fetching.then((late) => void late.body?.cancel(signal.reason).catch(ignore), ignore)
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    fetching.then(
      (res) => {
        signal.removeEventListener('abort', onAbort)
        resolve(res)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })

/**
 * The body of `res` as text, read with a reader of our own: once `signal` aborts the reader cancels the
 * body, so a body that never ends (its fetch not listening to `signal`) ends the read, with the reason.
 * A body of more than `maxBytes` is cancelled there, unread past them: undefined.
 */
export const textUnlessAborted = async (
  res: Response,
  signal: AbortSignal,
  maxBytes: number,
): Promise<string | undefined> => {
  if (res.body === null) return ''
  const reader = res.body.getReader()
  let cancelled = false
  const cancel = () => {
    cancelled = true
    reader.cancel(signal.reason).catch(ignore)
  }
  if (signal.aborted) cancel()
  else signal.addEventListener('abort', cancel, { once: true })
  const decoder = new TextDecoder() // UTF-8, dropping a byte order mark, as Response.text() does
  let text = ''
  let bytes = 0
  try {
    // A cancel ends a pending read as done, so only `cancelled` tells the end of the body from an abort.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength
      if (bytes > maxBytes) {
        reader.cancel().catch(ignore)
        return undefined
      }
      text += decoder.decode(chunk.value, { stream: true })
    }
  } finally {
    signal.removeEventListener('abort', cancel)
  }
  if (cancelled) throw signal.reason
  return text + decoder.decode()
}
