import type { IncomingMessage } from 'node:http'

/** What reading a body came to: its bytes, or why there are none. */
export type RawBody = Buffer | 'too-large' | 'incomplete' | 'timeout'

// Kept on the request under a symbol, so the listeners are four module functions, not closures per request.
type Reading = {
  readonly declared: number | undefined
  readonly limit: number
  readonly deadline: number
  readonly resolve: (raw: RawBody) => void
  readonly chunks: Array<Buffer>
  size: number
}
const READING = Symbol('reading')
type Read = IncomingMessage & { [READING]?: Reading | undefined }

// One interval of the process checks the deadlines of the bodies still arriving, not a timer per body
// (ARCHITECTURE.md, 'Made by hand, on purpose', row "body reader"); a late body is refused within SWEEP_MS.
const SWEEP_MS = 50
const arriving = new Set<Read>()
let sweep: NodeJS.Timeout | undefined

const sweepDeadlines = () => {
  const now = Date.now()
  for (const req of arriving)
    if (req[READING] !== undefined && req[READING].deadline <= now) finish(req, 'timeout')
  if (arriving.size === 0) {
    clearInterval(sweep)
    sweep = undefined
  }
}

function finish(req: Read, raw: RawBody) {
  const reading = req[READING]
  if (reading === undefined) return
  req[READING] = undefined
  arriving.delete(req)
  req.off('data', onData)
  req.off('end', onEnd)
  req.off('error', onEnded)
  req.off('close', onEnded)
  reading.resolve(raw)
}

function onData(this: Read, chunk: Buffer) {
  const reading = this[READING]
  if (reading === undefined) return
  reading.size += chunk.length
  if (reading.size <= reading.limit) return void reading.chunks.push(chunk)
  overLimit.add(this)
  this.pause()
  finish(this, 'too-large')
}

function onEnd(this: Read) {
  const reading = this[READING]
  if (reading === undefined) return
  const { declared, size, chunks } = reading
  finish(this, declared !== undefined && size !== declared ? 'incomplete' : Buffer.concat(chunks, size))
}

function onEnded(this: Read) {
  finish(this, 'incomplete')
}

// The body if it is all there already (`undefined` when it is still arriving), or why there is none.
const bodyAtHand = (
  req: IncomingMessage,
  declared: number | undefined,
  limit: number,
): RawBody | undefined => {
  if (req.destroyed || !req.readable) return 'incomplete'
  if (!req.complete || req.readableFlowing === true) return undefined
  if (req.readableLength > limit) return 'too-large'
  const bytes = (req.read() as Buffer | null) ?? Buffer.alloc(0)
  return declared !== undefined && bytes.length !== declared ? 'incomplete' : bytes
}

/**
 * Reads a request's body within `timeoutMs`, up to `limit` bytes; a stream that ends short, fails or
 * closes is `incomplete` (the client's doing). A body sent with its headers is whole at the next turn
 * and taken without a listener (ARCHITECTURE.md, 'Made by hand, on purpose', row "body reader").
 */
export const readBodyBytes = (
  req: IncomingMessage,
  declared: number | undefined,
  limit: number,
  timeoutMs: number,
): RawBody | Promise<RawBody> => {
  const atHand = bodyAtHand(req, declared, limit)
  if (atHand !== undefined) return atHand
  // Only a body still arriving can be followed by bytes the parser refuses while it is read (bodyOverLimit).
  limits.set(req, limit)
  return new Promise((resolve) => setImmediate(takeOrListen, resolve, req, declared, limit, timeoutMs))
}

// The requests whose body a handler waits for, with its limit, and those found over it as they were read.
const limits = new WeakMap<object, number>()
const overLimit = new WeakSet<object>()

/**
 * Whether a request's body, read by readBodyBytes, is over its limit by the bytes node's parser handed over
 * (read, or waiting in the stream): its 413 is to come, before a 400 for bytes the parser refuses after them
 * (the contract's order; answer-client-error.ts). On Node 22 and later a request's stream holds 64 KiB (its
 * highWaterMark, 16 KiB on Node 20) before node stops reading the socket: the rest of a body and the bytes
 * refused after it may then be parsed before the reader listens (at the next turn).
 */
export const bodyOverLimit = (req: object | null | undefined): boolean => {
  const limit = req === null || req === undefined ? undefined : limits.get(req)
  if (limit === undefined) return false
  const read = req as Read
  return overLimit.has(read) || (read[READING]?.size ?? 0) + read.readableLength > limit
}

function takeOrListen(
  resolve: (raw: RawBody) => void,
  req: Read,
  declared: number | undefined,
  limit: number,
  timeoutMs: number,
) {
  const raw = bodyAtHand(req, declared, limit)
  if (raw !== undefined) return resolve(raw)
  // No time limit would let a body sent a byte at a time hold the connection until the server's
  // requestTimeout. Past it the answer is 400 and the connection is closed, the rest never read.
  req[READING] = { declared, limit, deadline: Date.now() + timeoutMs, resolve, chunks: [], size: 0 }
  arriving.add(req)
  sweep ??= setInterval(sweepDeadlines, SWEEP_MS).unref()
  req.on('data', onData)
  req.on('end', onEnd)
  req.on('error', onEnded)
  req.on('close', onEnded)
}
