import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { answerClientError } from './answer-client-error.js'
import { answerAndClose } from './answer-and-close.js'
import { withoutEarlyContinue } from './continue-on-read.js'
import { answerHttp2Preface } from './http2-preface.js'
import { afterAnswersUnderWay, answerInTurn } from './later-refusals.js'
import { closeAfterLinger, lingeringRefusal } from './linger.js'
import { watchHeadStarts } from './head-starts.js'
import { handRefusalToApp } from './refused-request.js'
import { noteRequest } from './request-turns.js'

/** What serves a request: an app's `callback()`, or whatever hands requests to it. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void

/** How long the connection of a CONNECT request stays open for its answer: node's timeouts no longer watch it. */
export const CONNECT_ANSWER_MS = 10_000

/**
 * Options for `createServer` that leave to the app a request node:http would refuse with a bare status:
 * an HTTP/1.1 request without `Host` (serveRequests answers it 400 with an Error body).
 */
export const APP_ANSWERS_EVERY_REQUEST = { requireHostHeader: false } as const

/**
 * Lets `handle` answer what node:http answers by itself with a bare status line, or not at all (CONTRACT:
 * every answer is an Error body with `X-Request-Id`; under /v1, 401 comes first):
 * - HTTP/2's connection preface (a client with prior knowledge): HTTP/2's HTTP_1_1_REQUIRED, not an HTTP/1.1
 *   400 it cannot read (http2-preface.ts);
 * - a request its parser refuses (too large, malformed, slow): handed to `handle` as a request of its own,
 *   which serveRequests answers 400 with an Error body, logged and counted as any (refused-request.ts); when
 *   the app already has it, or cannot have it, answerClientError answers on the socket; a method it does not
 *   know is answered by the app as any method it does not serve (401, 404 or 405), its head read from the
 *   refused bytes (refused-head.ts); one refused behind requests already whole is answered after their
 *   answers, not over them (later-refusals.ts);
 * - an `Expect` other than `100-continue` (node's 417, without a body): the expectation is ignored, as RFC
 *   9110 section 10.1.1 allows (a server MAY answer 417), and the request is served like any other;
 * - `Expect: 100-continue` (node's 100 Continue at once, so the client sends a body a 401 or 413 then leaves
 *   unread): 100 Continue goes out only when the body is read, never for a request without content, whose
 *   connection node would close after any answer (continue-on-read.ts);
 * - a `CONNECT` (node closes its connection without a word): answered as any method the app does not serve
 *   (401, 404 or 405 with `Allow`), then its connection is closed, since node's parser has let go of it;
 * - header lines past the 2,000th (node's `maxHeadersCount`, which drops the rest without a word): every line
 *   reaches the app, so that its rules on a header sent twice (Host, Authorization, Content-Type,
 *   Idempotency-Key) or on codings see them all; `maxHeaderSize` bounds a head's lines anyway.
 * Made with APP_ANSWERS_EVERY_REQUEST, the server also leaves a request without `Host` to the app.
 */
export const answerEveryRequest = (server: Server, handle: RequestHandler): void => {
  // 0 is no limit (read as each connection begins). 2,000 empty lines fit in 8 KB: a second Host,
  // Authorization or Content-Encoding behind them went unseen, and the request was served with the first.
  server.maxHeadersCount = 0
  // Which connections handed a request over in this turn: bytes refused now may share its packet.
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.on(event, noteRequest)
  // node closes a connection whose answer said Connection: close with its destroySoon, at once once written: a
  // client that had sent more behind it (a pipelined request) was reset, its next write failed (EPIPE), and it
  // never read the answer. RFC 9112 section 9.6: close in stages, reading on (closeAfterLinger), as nginx's
  // lingering_close; what it still sends is not served (inOrder).
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = () => closeAfterLinger(socket, { parserReads: true })
    // The start of a head that comes in several packets, which node's refusal of a later one lacks (a HEAD's).
    watchHeadStarts(socket)
  })
  const answerRefusal = (error: Error & { code?: string }, socket: Duplex) => {
    if (!handRefusalToApp(error, socket, handle)) answerClientError(error, socket)
  }
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // HTTP/2's connection preface, and what follows it: HTTP/2's answer, HTTP_1_1_REQUIRED.
    if (answerHttp2Preface(error, socket)) return
    // What a client still sends on a connection closing after its last answer: no request.
    if (lingeringRefusal(error, socket)) return
    // A request refused behind one answered whole is answered in its turn, after those before it.
    if (!answerInTurn(error, socket, (refusal) => answerRefusal(refusal, socket)))
      answerRefusal(error, socket)
  })
  server.on('checkExpectation', handle)
  server.on('checkContinue', withoutEarlyContinue(handle))
  server.on('connect', (req: IncomingMessage, stream: Duplex) => {
    const socket = stream as Socket
    // Node took its own listeners off the socket as it handed it over: an error must not end the process.
    socket.on('error', () => socket.destroy())
    socket.setTimeout(CONNECT_ANSWER_MS, () => socket.destroy())
    // node's parser has let go of the connection: what the client still sends is read here. Answered after
    // the answers of the requests before it: node hands it over while they still hold the socket, and a second
    // answer assigned to it threw out of node's parser (ERR_HTTP_SOCKET_ASSIGNED), which ended the process.
    afterAnswersUnderWay(socket, () =>
      answerAndClose(req, socket, handle, (s) => closeAfterLinger(s, { parserReads: false })),
    )
  })
}
