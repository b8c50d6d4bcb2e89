import { randomUUID } from 'node:crypto'
import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { afterAnswersUnderWay } from './later-refusals.js'
import { closeAfterLinger, droppedMeanwhile, endDropOf, lingeringRefusal } from './linger.js'
import { bodyOverLimit } from '../body/read-body-bytes.js'
import { toErrorResponse } from '../problems.js'

// A Map, as every lookup by a name that came with an error: no inherited name passes.
const REASONS: ReadonlyMap<string, string> = new Map([
  ['HPE_HEADER_OVERFLOW', 'The request line and headers must be at most 16 KiB together.'],
  ['ERR_HTTP_REQUEST_TIMEOUT', 'The request did not arrive in time.'],
  ['ERR_HTTP_HEADERS_TIMEOUT', 'The request headers did not arrive in time.'],
  [
    'HPE_INVALID_VERSION',
    'The request line must end in HTTP/1.1 (or HTTP/1.0): no other version is served here.',
  ],
])

/** What a 400 says of a request node's parser refused, by the error's code. */
export const refusalReason = (error: { readonly code?: string }): string =>
  REASONS.get(error.code ?? '') ?? 'The request is not valid HTTP/1.1.'

const TIMEOUTS: ReadonlySet<string> = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ERR_HTTP_HEADERS_TIMEOUT'])
/**
 * Whether node refused a client for its slowness (its request or its headers not in time): node's parser is not
 * in error then, and would read on what still comes, so such a connection closes at once once answered.
 */
export const isTimeoutRefusal = (code: string | undefined): boolean => TIMEOUTS.has(code ?? '')

// The responses of requests the app had whose rest node's parser refused, answered 400 here on the socket.
const answeredHere = new WeakSet<object>()

/**
 * Whether answerClientError answered 400 for this response's request (its body broke node's parser, or ended
 * early): the client got that 400, though the response itself never went out and is destroyed.
 */
export const answeredOnSocket = (res: object): boolean => answeredHere.has(res)

type BegunRequest = { complete?: boolean; method?: string }
// Connections closing after an answer begun before their request's body broke node's parser.
const closingAfterAnswer = new WeakSet<Duplex>()

// The answer begun (a 401 that leaves the body unread, lingerAfterAnswer) ends, as the body it waited for never
// will; then the connection closes as after any refused bytes behind an answer (later-refusals.ts): a lingering
// close, which reads on what the client still sends. Destroyed at once, a client still sending its body met a
// reset (its next write failed, EPIPE) and lost the 401 it had not read yet.
const endAfterBegunAnswer = (error: { rawPacket?: unknown }, socket: Duplex, answer: object) => {
  droppedMeanwhile(error, socket)
  if (closingAfterAnswer.has(socket)) return
  closingAfterAnswer.add(socket)
  endDropOf(answer)
  afterAnswersUnderWay(socket as Socket, () => closeAfterLinger(socket as Socket, { parserReads: true }))
}

/**
 * A node:http `clientError` listener: a request the parser refuses (too large, malformed, slow) gets a
 * 400 Error body with a request id, then the connection closes. CONTRACT has no 408 or 431 code.
 */
export const answerClientError = (
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Duplex,
): void => {
  // As node's own default does, through its private `_httpMessage` (guard: test/private-api-guards.test.ts):
  // a reset connection, or one whose answer has begun, gets nothing more.
  const answering = (
    socket as {
      _httpMessage?: {
        headersSent?: boolean
        getHeader?: (name: string) => unknown
        req?: BegunRequest
      } | null
    }
  )._httpMessage
  // What a client still sends on a connection closing after this 400 (answerEveryRequest asks before).
  if (lingeringRefusal(error, socket)) return
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  if (answering?.headersSent === true) return void endAfterBegunAnswer(error, socket, answering)
  // The app's request, if the refused bytes are its own (its body broke the parser): this 400 is its answer,
  // with the id its log line carries. A request answered whole before them is no part of it: its answer is
  // lost with the connection (logged as such), and this 400 has an id of its own.
  const own = answering !== undefined && answering !== null && answering.req?.complete === false
  // A body its handler reads that is over its limit already: the handler's 413 comes first (the contract's
  // order), then the connection closes, as after an answer begun (on Node 22 and 24 these bytes could be
  // refused before the handler read the body they follow: a 400 in its place).
  if (own && bodyOverLimit(answering.req)) return void endAfterBegunAnswer(error, socket, answering)
  if (own) answeredHere.add(answering)
  const reason = refusalReason(error)
  const given = own ? answering.getHeader?.('x-request-id') : undefined
  const requestId = typeof given === 'string' ? given : randomUUID()
  const { body } = toErrorResponse({ _tag: 'MalformedRequest', reason })
  const json = JSON.stringify(body)
  // An answer to HEAD has no body: a client would read one as the start of the next answer. The app's own
  // request says its method; else the refused bytes do, when they start the packet. The packet's first word
  // is not the method of the app's request: a HEAD answered before it may start the packet, and its 400 then
  // said Content-Length without the body (a client read a cut answer).
  const head = own
    ? answering.req?.method === 'HEAD'
    : Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD '
  socket.end(
    `HTTP/1.1 ${body.status} Bad Request\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      (head ? '' : json),
    // Closed as a lingering close, so that a client still sending (its body, a head over 16 KiB, an upload behind a
    // bad request line) reads this 400: a reset dropped it unread (bench/fuzz, 8 of 30 replays; linger.test.ts);
    // node's parser, in its error, refuses what still comes (lingeringRefusal counts it), and the app's request,
    // if any, ends with the connection, within LINGER_MS. After a timeout (a head or a body too slow) at once,
    // once written: node's parser is not in error then, and what the slow client sent next was handed to the app
    // as a request after its 400, the rest of a head or a request behind a body (linger.test.ts).
    () =>
      isTimeoutRefusal(error.code)
        ? socket.destroy()
        : closeAfterLinger(socket as Socket, { parserReads: true }),
  )
}
