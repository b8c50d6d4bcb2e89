import { IncomingMessage, METHODS, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { refusalReason } from './answer-client-error.js'
import { answerAndClose } from './answer-and-close.js'

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

/**
 * Hands a request that node's parser refused to the app, as a request of its own that it answers 400 (its
 * log line, metrics, span and request id, as any answer's); true when it did. Not when the app already has
 * the request (a body broke the parser: the app's own answer and line stand for it), or the connection is
 * gone: answerClientError's to answer, or not.
 */
export const handRefusalToApp = (
  error: Error & { code?: string; rawPacket?: unknown },
  stream: Duplex,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): boolean => {
  const socket = stream as Socket & { _httpMessage?: unknown }
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket._httpMessage !== undefined && socket._httpMessage !== null)
  )
    return false
  const { method, target } = requestLineOf(error.rawPacket)
  const req = new IncomingMessage(socket)
  Object.assign(req, { method, url: target, httpVersion: '1.1', httpVersionMajor: 1, httpVersionMinor: 1 })
  req.complete = true
  req.push(null)
  refusals.set(req, refusalReason(error))
  answerAndClose(req, socket, handle)
  return true
}
