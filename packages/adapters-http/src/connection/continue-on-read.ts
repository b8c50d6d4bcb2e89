import type { IncomingMessage, ServerResponse } from 'node:http'

// The requests node handed over without its 100 Continue (answerEveryRequest's `checkContinue`).
const awaiting = new WeakSet<IncomingMessage>()

/**
 * Whether a request's framing says it has no content (RFC 9112 section 6.3: neither Transfer-Encoding nor a
 * Content-Length, or a Content-Length of 0): all of it has come with its head.
 */
export const hasNoContent = (req: { readonly headers: Readonly<Record<string, unknown>> }): boolean => {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')
}

/**
 * Serves a request that expects 100-continue without node's automatic 100 Continue: the client sends its
 * body only once `continueToBody` is called, as the body is about to be read. An answer given before (401,
 * 413 for a declared length, 415) is then the client's only answer, and its body never leaves it (RFC 9110
 * section 10.1.1); node closes that connection after the answer, as the client may send the body anyway.
 * A request without content gets no 100 Continue (RFC 9110 section 10.1.1 lets a server omit it "if the
 * framing indicates that there is no content") and keeps its connection: nothing of it is still to come,
 * where node would close the connection after any answer without 100 Continue (its `_expect_continue`,
 * guard: private-api-guards.test.ts).
 */
export const withoutEarlyContinue =
  (handle: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    if (hasNoContent(req)) (res as ServerResponse & { _expect_continue?: boolean })._expect_continue = false
    else awaiting.add(req)
    handle(req, res)
  }

/** Tells a client waiting for 100 Continue to send its body, now that it is read; once, and only to one waiting. */
export const continueToBody = (req: IncomingMessage, res: ServerResponse): void => {
  if (!awaiting.delete(req) || res.headersSent || res.writableEnded) return
  res.writeContinue()
}
