import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { closeAfterLinger, droppedMeanwhile } from './linger.js'
import { isTokenByte, readRefusedHead } from './refused-head.js'
import { lastQueuedResponseOf } from './request-turns.js'

type Refusal = Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }
// node's own: the response under way on a connection (guard: private-api-guards.test.ts).
type Connection = Socket & { _httpMessage?: (ServerResponse & { req?: { complete?: boolean } }) | null }

// Connections whose refused request waits for the answers before it, with the packets of its bytes: node's
// parser, left in its error, refuses every later packet too, and those are the rest of them (kept up to the
// 16 KiB a head may have, and put together once, when its turn comes).
type Waiting = { readonly parts: Array<Buffer>; size: number }
const waitingTurn = new WeakMap<Duplex, Waiting>()
const MOST_KEPT = 16 * 1024

// The refusal as if its packet began with the refused request: for a method node does not know, from the start
// of the word it stopped in (the bytes before are the requests answered before it); for any other refusal its
// first line is not known, and the request stands for itself without one.
const ownPart = (error: Refusal): Refusal => {
  const raw = error.rawPacket
  const at = error.bytesParsed
  if (error.code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(raw) || typeof at !== 'number')
    return Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code })
  let start = Math.min(at, raw.length)
  while (start > 0 && isTokenByte(raw[start - 1]!)) start--
  return Object.assign(new Error(error.message), {
    code: 'HPE_INVALID_METHOD',
    rawPacket: raw.subarray(start),
    bytesParsed: at - start,
  })
}

// A request refused for its method alone whose head is whole and well formed in `bytes`: one to answer.
const isReadable = (refusal: Refusal, bytes: Buffer | undefined): boolean =>
  refusal.code === 'HPE_INVALID_METHOD' && bytes !== undefined && readRefusedHead(bytes) !== undefined

/**
 * When node's parser refuses bytes that follow a request it handed over whole (pipelined behind it), they
 * are dealt with after the answers before them, never in their place: node would write its 400 at once, over
 * the answer still being made (a POST already carried out answered 400, so retried: a second pet). A request
 * of a method node does not know, its head whole, is answered in its turn (`answer` runs with the refusal as
 * if its packet began with it, once no answer is under way or waiting). Anything else is no request to answer
 * (node's own client sends the body of a DELETE without a length: it reads as the start of the next request):
 * the connection closes after the answers of the requests handed over before those bytes, the last saying
 * `Connection: close` (RFC 9112 section 9.3.2: a server may answer the requests it read, then close), so that no
 * client takes a stray 400 for the answer of its next request. Returns false when the refusal is not such a
 * one; meanwhile the connection's further refusals are the rest of the refused bytes.
 */
export const answerInTurn = (error: Refusal, stream: Duplex, answer: (refusal: Refusal) => void): boolean => {
  const waiting = waitingTurn.get(stream)
  if (waiting !== undefined) {
    if (Buffer.isBuffer(error.rawPacket) && waiting.size <= MOST_KEPT) {
      waiting.parts.push(error.rawPacket)
      waiting.size += error.rawPacket.length
    }
    droppedMeanwhile(error, stream)
    return true
  }
  const socket = stream as Connection
  const under = socket._httpMessage
  // Bytes after a request that said Connection: close (llhttp refuses them): its client may send none (RFC 9112
  // section 9.6), and that request's own answer closes the connection. They are dropped, and the requests before
  // them, that one included, answered in turn: closing after the answer under way, the one that said close was
  // never run, or was, as the store was slow or fast.
  if (error.code === 'HPE_CLOSED_CONNECTION' && under !== null && under !== undefined) {
    droppedMeanwhile(error, stream)
    return true
  }
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    under === null ||
    under === undefined ||
    under.req?.complete !== true
  )
    return false
  const refusal = ownPart(error)
  const first = Buffer.isBuffer(refusal.rawPacket) ? refusal.rawPacket : undefined
  const parts: Waiting = first === undefined ? { parts: [], size: 0 } : { parts: [first], size: first.length }
  waitingTurn.set(stream, parts)
  // What cannot be answered yet says Connection: close on the last answer node will write, if it still can: that
  // of the last request handed over (pipelined behind the one under way, it waits in node's queue), whose bytes
  // all came before these, so every request read is answered (RFC 9112 section 9.3.2), else the one under way.
  // node then closes the connection with its destroySoon, a lingering close on every connection
  // (answerEveryRequest), so that a client still sending those bytes reads the answer. A request whose body these
  // bytes broke (not complete) is not answered: the close goes on the answer before it.
  const queued = lastQueuedResponseOf(socket)
  const last = queued !== undefined && queued.req?.complete === true ? queued : under
  if (!isReadable(refusal, first) && !last.headersSent) last.shouldKeepAlive = false
  const next = () => {
    const bytes = parts.parts.length > 1 ? Buffer.concat(parts.parts, parts.size) : first
    // From now on the connection's refusals are the answer's own to read (refused-request.ts).
    waitingTurn.delete(stream)
    if (!isReadable(refusal, bytes)) return void closeAfterLinger(socket, { parserReads: true })
    refusal.rawPacket = bytes
    answer(refusal)
  }
  afterAnswersUnderWay(socket, next)
  return true
}

/**
 * Runs `run` once no answer holds the connection: node gives it to the next answer waiting as one finishes,
 * before that one's `close` (guard: private-api-guards.test.ts), so each `close` looks again. Never, once the
 * connection can no longer be written (it closed after them).
 */
export const afterAnswersUnderWay = (socket: Connection, run: () => void): void => {
  if (socket.destroyed || !socket.writable) return
  const under = socket._httpMessage
  if (under === null || under === undefined) return run()
  under.once('close', () => afterAnswersUnderWay(socket, run))
}
