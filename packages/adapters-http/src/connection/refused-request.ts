import { IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { isTimeoutRefusal, refusalReason } from './answer-client-error.js'
import { answerAndClose, closeAtOnce } from './answer-and-close.js'
import { closeAfterLinger, droppedMeanwhile } from './linger.js'
import { headStartOf } from './head-starts.js'
import { handedOverThisTurn } from './request-turns.js'
import {
  isOtherVersion,
  MAX_HEAD_BYTES,
  readRefusedHead,
  requestLineOf,
  requestLineVersion,
  type RefusedHead,
} from './refused-head.js'

// What node's parser refused, by the request made to stand for it (serveRequests answers it 400).
const refusals = new WeakMap<IncomingMessage, string>()

/** Why node's parser refused the request that stands for a refused one; undefined for any other. */
export const refusalOf = (req: IncomingMessage): string | undefined => refusals.get(req)

// The method as sent of a request that stands for one whose method node does not know (its `method` is
// `_OTHER`, for the log line and the metrics): the span's `http.request.method_original`.
const sentMethods = new WeakMap<IncomingMessage, string>()

/** The method as sent, where the request stands for one whose method node does not know; else undefined. */
export const sentMethodOf = (req: IncomingMessage): string | undefined => sentMethods.get(req)

// Sockets whose refused request the app answers: node's parser, left in its error, refuses every later chunk
// too (a body that follows, say), and none of those must write over the app's answer.
const handed = new WeakSet<Duplex>()

// The request that stands for a refused one: `_OTHER` for a method node does not know (metrics keep their
// few labels, as the span's name does), ended, without a body (its connection closes after the answer).
const standIn = (socket: Socket, method: string, url: string, head?: RefusedHead): IncomingMessage => {
  const req = new IncomingMessage(socket)
  const minor = head?.httpVersionMinor ?? 1
  Object.assign(req, { method, url, httpVersion: `1.${minor}`, httpVersionMajor: 1, httpVersionMinor: minor })
  if (head !== undefined) {
    Object.assign(req, { headers: head.headers, rawHeaders: head.rawHeaders })
    sentMethods.set(req, head.method)
  }
  req.complete = true
  req.push(null)
  return req
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

// The bytes of a request refused for its method alone, when they start the packet (node's parser stopped, at
// `bytesParsed`, within the packet's first word: no request answered before it shares the packet).
const unknownMethodStart = (error: {
  code?: string
  rawPacket?: unknown
  bytesParsed?: unknown
}): Buffer | undefined => {
  const raw = error.rawPacket
  if (error.code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(raw) || typeof error.bytesParsed !== 'number')
    return undefined
  const space = raw.indexOf(0x20)
  // A method that is the start of one node knows (`GE`) stops the parser at the space: still the first word.
  return space < 0 || space >= error.bytesParsed ? raw : undefined
}

// node's parser reads the connection of a refused request still (refusing each packet): a client still sending
// after the answer is read to its end (closeAfterLinger), unless it was refused for being slow.
const lingerAfter = (socket: Socket) => closeAfterLinger(socket, { parserReads: true })

// Answers 400 for a refused request, as a request of the app's own (serveRequests reads the reason).
const refuse = (socket: Socket, handle: Handler, raw: unknown, code: string | undefined): void => {
  const { method, target } = requestLineOf(raw)
  const req = standIn(socket, method, target)
  // llhttp refuses `PRI` without the rest of HTTP/2's preface as a bad version, whatever version its line names.
  const version = code === 'HPE_INVALID_VERSION' && Buffer.isBuffer(raw) ? requestLineVersion(raw) : undefined
  const said = version === 'HTTP/1.1' || version === 'HTTP/1.0' ? undefined : code
  refusals.set(req, refusalReason(said === undefined ? {} : { code: said }))
  answerAndClose(req, socket, handle, isTimeoutRefusal(code) ? closeAtOnce : lingerAfter)
}

// Heads of unknown methods still arriving, by socket: node's parser refuses each later packet too, and
// hands it over. Each packet is searched once for the head's end (with the 3 bytes before it), and the head
// read once: linear in what arrives, however it is cut.
type Arriving = {
  readonly chunks: Array<Buffer>
  size: number
  tail: Buffer
  readonly timer: NodeJS.Timeout
  readonly handle: Handler
}
const arriving = new WeakMap<Duplex, Arriving>()
const END = '\r\n\r\n'

// The head whole: the app answers it (or 400 if it is not HTTP/1.1); past 16 KiB, 400; else it waits for more.
const readOrWait = (socket: Socket, state: Arriving, chunk: Buffer): void => {
  const seam = Buffer.concat([state.tail, chunk])
  const ended = seam.includes(END)
  state.chunks.push(chunk)
  state.size += chunk.length
  state.tail = seam.subarray(-(END.length - 1))
  if (!ended && state.size < MAX_HEAD_BYTES) return
  clearTimeout(state.timer)
  arriving.delete(socket)
  const bytes = Buffer.concat(state.chunks, state.size)
  const head = readRefusedHead(bytes)
  if (head !== undefined)
    answerAndClose(standIn(socket, '_OTHER', head.target, head), socket, state.handle, lingerAfter)
  else
    refuse(
      socket,
      state.handle,
      bytes,
      !bytes.subarray(0, MAX_HEAD_BYTES).includes(END)
        ? 'HPE_HEADER_OVERFLOW'
        : isOtherVersion(requestLineVersion(bytes))
          ? 'HPE_INVALID_VERSION'
          : undefined,
    )
}

// How long the rest of a head may take: the server's own `headersTimeout`.
const headersTimeoutOf = (socket: Socket): number =>
  (socket as Socket & { server?: { headersTimeout?: number } }).server?.headersTimeout ?? 60_000

/**
 * Hands a request that node's parser refused to the app, as a request of its own (its log line, metrics,
 * span and request id, as any answer's); true when it did, or when the app already answers this socket's
 * refused request. A method node does not know (RFC 9110 allows any token) is served as any method the app
 * does not serve, with the headers of its head (401 without a key, then 404 or 405, as CONNECT is), once the
 * head has arrived, within the server's `headersTimeout` and 16 KiB; any other refusal is answered 400, but a
 * connection that timed out before sending anything is closed without an answer. Not
 * when the app already has the request (a body broke the parser: the app's own answer and line stand for
 * it), or the connection is gone: answerClientError's to answer, or not.
 */
export const handRefusalToApp = (
  error: Error & { code?: string; rawPacket?: unknown },
  stream: Duplex,
  handle: Handler,
): boolean => {
  const socket = stream as Socket & { _httpMessage?: unknown }
  const state = arriving.get(socket)
  if (state !== undefined && Buffer.isBuffer(error.rawPacket) && error.code !== 'ECONNRESET') {
    readOrWait(socket, state, error.rawPacket)
    return true
  }
  if (handed.has(socket)) {
    if (error.code === 'ECONNRESET') socket.destroy()
    else droppedMeanwhile(error, socket)
    return true
  }
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket._httpMessage !== undefined && socket._httpMessage !== null)
  )
    return false
  // A connection that timed out without sending a byte made no request (a browser's preconnect, a balancer's
  // TCP check): it is closed, with no answer, no line and no count.
  if (isTimeoutRefusal(error.code) && socket.bytesRead === 0) {
    socket.destroy()
    return true
  }
  handed.add(socket)
  const start = unknownMethodStart(error)
  if (start === undefined) {
    // Where the refused head began (head-starts.ts: in an earlier packet, or behind other heads of its own), if
    // known: a HEAD's answer has no body. Else the packet's first line is not the refused request's own behind a
    // request handed over from the same packet (a head too large behind a HEAD was answered as that HEAD).
    const begun = headStartOf(socket, error.rawPacket)
    const raw = begun === undefined ? (handedOverThisTurn(socket) ? undefined : error.rawPacket) : begun
    refuse(socket, handle, raw ?? undefined, error.code)
    return true
  }
  const timer = setTimeout(() => {
    arriving.delete(socket)
    refuse(socket, handle, start, 'ERR_HTTP_HEADERS_TIMEOUT')
  }, headersTimeoutOf(socket)).unref()
  const waiting: Arriving = { chunks: [], size: 0, tail: Buffer.alloc(0), timer, handle }
  arriving.set(socket, waiting)
  socket.once('close', () => clearTimeout(timer))
  readOrWait(socket, waiting, start)
  return true
}
