import type { IncomingMessage, ServerResponse } from 'node:http'

// The requests node handed over without its 100 Continue (answerEveryRequest's `checkContinue`).
const awaiting = new WeakSet<IncomingMessage>()

/**
 * Serves a request that expects 100-continue without node's automatic 100 Continue: the client sends its
 * body only once `continueToBody` is called, as the body is about to be read. An answer given before (401,
 * 413 for a declared length, 415) is then the client's only answer, and its body never leaves it (RFC 9110
 * section 10.1.1); node closes that connection after the answer, as the client may send the body anyway.
 */
export const withoutEarlyContinue =
  (handle: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    awaiting.add(req)
    handle(req, res)
  }

/** Tells a client waiting for 100 Continue to send its body, now that it is read; once, and only to one waiting. */
export const continueToBody = (req: IncomingMessage, res: ServerResponse): void => {
  if (!awaiting.delete(req) || res.headersSent || res.writableEnded) return
  res.writeContinue()
}
