import { IncomingMessage, METHODS, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { refusalReason } from './answer-client-error.js'
import { answerAndClose } from './answer-and-close.js'
import { readRefusedHead, type RefusedHead } from './refused-head.js'

// What node's parser refused, by the request made to stand for it (serveRequests answers it 400).
const refusals = new WeakMap<IncomingMessage, string>()

/** Why node's parser refused the request that stands for a refused one; undefined for any other. */
export const refusalOf = (req: IncomingMessage): string | undefined => refusals.get(req)

const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS)
const MAX_TARGET = 4096

// The method and target of the refused bytes' first line, as far as they read as such: a method node knows
// (else `_OTHER`, so that metrics keep their few labels) and a path of visible ASCII (else `/`). One pass.
const requestLineOf = (raw: unknown): { readonly method: string; readonly target: string } => {
  if (!Buffer.isBuffer(raw)) return { method: '_OTHER', target: '/' }
  const firstLine = raw
    .subarray(0, Math.min(raw.length, MAX_TARGET + 64))
    .toString('latin1')
    .split('\r\n', 1)[0]!
  const [method = '', target = ''] = firstLine.split(' ', 2)
  let visible = target.startsWith('/') && target.length <= MAX_TARGET
  for (let i = 0; visible && i < target.length; i++) {
    const code = target.charCodeAt(i)
    visible = code > 0x20 && code < 0x7f
  }
  return { method: KNOWN_METHODS.has(method) ? method : '_OTHER', target: visible ? target : '/' }
}

// Sockets whose refused request the app answers: node's parser, left in its error, refuses every later chunk
// too (a body that follows, say), and none of those must write over the app's answer.
const handed = new WeakSet<Duplex>()

// The request that stands for a refused one: `_OTHER` for a method node does not know (metrics keep their
// few labels, as the span's name does), ended, without a body (its connection closes after the answer).
const standIn = (socket: Socket, method: string, url: string, head?: RefusedHead): IncomingMessage => {
  const req = new IncomingMessage(socket)
  const minor = head?.httpVersionMinor ?? 1
  Object.assign(req, { method, url, httpVersion: `1.${minor}`, httpVersionMajor: 1, httpVersionMinor: minor })
  if (head !== undefined) Object.assign(req, { headers: head.headers, rawHeaders: head.rawHeaders })
  req.complete = true
  req.push(null)
  return req
}

// The head of a request refused for its method alone, when its bytes are the packet's first (node's parser
// stopped, at `bytesParsed`, within the packet's first word: no request answered before it shares the packet).
const unknownMethodHead = (error: {
  code?: string
  rawPacket?: unknown
  bytesParsed?: unknown
}): RefusedHead | undefined => {
  const raw = error.rawPacket
  if (error.code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(raw) || typeof error.bytesParsed !== 'number')
    return undefined
  const space = raw.indexOf(0x20)
  return space > error.bytesParsed ? readRefusedHead(raw) : undefined
}

/**
 * Hands a request that node's parser refused to the app, as a request of its own (its log line, metrics,
 * span and request id, as any answer's); true when it did, or when the app already answers this socket's
 * refused request. A method node does not know (RFC 9110 allows any token) is served as any method the app
 * does not serve, with the headers of its head (401 without a key, then 404 or 405, as CONNECT is); any other
 * refusal is answered 400. Not when the app already has the request (a body broke the parser: the app's own
 * answer and line stand for it), or the connection is gone: answerClientError's to answer, or not.
 */
export const handRefusalToApp = (
  error: Error & { code?: string; rawPacket?: unknown },
  stream: Duplex,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): boolean => {
  const socket = stream as Socket & { _httpMessage?: unknown }
  if (handed.has(socket)) {
    if (error.code === 'ECONNRESET') socket.destroy()
    return true
  }
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket._httpMessage !== undefined && socket._httpMessage !== null)
  )
    return false
  handed.add(socket)
  const head = unknownMethodHead(error)
  if (head !== undefined) {
    answerAndClose(standIn(socket, '_OTHER', head.target, head), socket, handle)
    return true
  }
  const { method, target } = requestLineOf(error.rawPacket)
  const req = standIn(socket, method, target)
  refusals.set(req, refusalReason(error))
  answerAndClose(req, socket, handle)
  return true
}
