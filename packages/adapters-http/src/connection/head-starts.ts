import type { Socket } from 'node:net'
import { hasNoContent } from './continue-on-read.js'

// node's parser of a connection, as its server keeps it on the socket (guard: private-api-guards.test.ts): the
// slots it calls as a message begins (kOnMessageBegin, left empty by node's server) and after each packet it read
// (kOnExecute), numbered by its class; the last request it made of a head (`incoming`, until a later head ends or
// node drops it as its answer finishes); the packet it is reading, copied.
type Parser = {
  [slot: number]: unknown
  readonly constructor: { readonly kOnMessageBegin?: unknown; readonly kOnExecute?: unknown }
  socket: unknown
  incoming: { readonly complete: boolean; readonly headers: Record<string, unknown> } | null
  getCurrentBuffer(): Buffer
}

// A connection's head under way: `before`, the parser's last request when it began (the one before it, or null);
// whether it began at a packet's start (after empty lines); what is kept of it once a packet ended inside it, its
// packets up to the end of its request line (MOST_KEPT at most: requestLineOf reads no more), or null where it
// began behind a body in its packet, at a place not known.
type Heads = {
  open: boolean
  before: Parser['incoming']
  atStart: boolean
  fresh: boolean
  kept: Array<Buffer> | null | undefined
  size: number
  lineEnded: boolean
  // The packet being read: the messages begun in it, whether it began inside a head, whether a body is in it.
  begunInPacket: number
  fromHead: boolean
  bodyInPacket: boolean
  inPacket: boolean
}
const heads = new WeakMap<object, Heads>()
const MOST_KEPT = 4096 + 64

// A packet read ended inside the head under way: the first keeps its start, later ones the rest of its line.
const keep = (heads: Heads, parser: Parser): void => {
  if (heads.kept === null || heads.lineEnded || heads.size > MOST_KEPT) return
  const packet = parser.getCurrentBuffer()
  // The empty lines a request line may follow are no part of it (RFC 9112 section 2.2).
  let start = 0
  while (heads.kept === undefined && (packet[start] === 0x0d || packet[start] === 0x0a)) start++
  let part = packet.subarray(start, start + MOST_KEPT)
  if (heads.kept === undefined && !heads.atStart) {
    // Begun behind the requests that ended in this packet: after the last one's head, if it had no body (a head
    // under way holds no empty line), else at a place not known.
    const before = heads.before
    const end = packet.lastIndexOf('\r\n\r\n')
    if (before === null || end < 0 || !hasNoContent(before)) return void (heads.kept = null)
    start = end + 4
    while (packet[start] === 0x0d || packet[start] === 0x0a) start++
    part = packet.subarray(start, start + MOST_KEPT)
  }
  const last = heads.kept?.at(-1)
  heads.lineEnded = part.includes('\r\n') || (last?.at(-1) === 0x0d && part[0] === 0x0a)
  heads.kept ??= []
  heads.kept.push(part)
  heads.size += part.length
}

/**
 * Keeps, for a head that comes in more than one packet, the start it began with: node's refusal of a later
 * packet carries that packet alone (headStartOf). As each message begins, a note; after each packet, a look at
 * whether a head is still under way, and a copy of the packet only when one is (its request line not yet whole).
 */
export const watchHeadStarts = (socket: Socket): void => {
  const parser = (socket as Socket & { parser?: Parser | null }).parser
  const begin = parser?.constructor.kOnMessageBegin
  const execute = parser?.constructor.kOnExecute
  if (parser === undefined || parser === null || typeof begin !== 'number' || typeof execute !== 'number')
    return
  const afterPacket = parser[execute]
  if (typeof afterPacket !== 'function' || parser[begin] !== null) return
  const state: Heads = {
    open: false,
    before: null,
    atStart: false,
    fresh: true,
    kept: undefined,
    size: 0,
    lineEnded: false,
    begunInPacket: 0,
    fromHead: false,
    bodyInPacket: false,
    inPacket: false,
  }
  heads.set(socket, state)
  parser[begin] = () => {
    state.open = true
    state.before = parser.incoming
    state.begunInPacket++
    if (!state.fresh && state.before !== null && !hasNoContent(state.before)) state.bodyInPacket = true
    state.atStart = state.fresh
    state.fresh = false
    state.kept = undefined
    state.size = 0
    state.lineEnded = false
  }
  parser[execute] = (ret: unknown) => {
    // A refusal of this packet is told inside (node's clientError): its messages begun are counted here. Where
    // node reads the socket in JS (no consume), this is never called, and nothing is found in a packet.
    state.inPacket = true
    afterPacket(ret)
    state.inPacket = false
    // node let go of its parser (a CONNECT's, an upgrade's), or refused the packet: nothing more to keep.
    if (parser.socket !== socket || ret instanceof Error) return
    const last = parser.incoming
    // A head ended since the message began: its request was made.
    if (state.open && last !== null && last !== state.before) state.open = false
    if (state.open) keep(state, parser)
    // The next packet begins a message of its own unless a head or a body is under way.
    state.fresh = !state.open && (last === null || last.complete)
    state.begunInPacket = 0
    state.fromHead = state.open
    state.bodyInPacket = false
  }
}

// Where in `packet` (the one being read) the head under way began, behind the heads that ended in it before:
// after the end (an empty line) of each, no head holding one before its own; null behind a body (not known).
const startInPacket = (state: Heads, packet: Buffer): Buffer | null => {
  if (state.bodyInPacket) return null
  let ends = state.begunInPacket - 1 + (state.fromHead ? 1 : 0)
  let at = 0
  const skipEmptyLines = () => {
    while (packet[at] === 0x0d || packet[at] === 0x0a) at++
  }
  if (!state.fromHead) skipEmptyLines()
  for (; ends > 0; ends--) {
    const end = packet.indexOf('\r\n\r\n', at)
    if (end < 0) return null
    at = end + 4
    skipEmptyLines()
  }
  return packet.subarray(at, at + MOST_KEPT)
}

/**
 * The bytes the head under way on this connection began with: kept, when it began in a packet before the one
 * read last (its request line, as far as it came); found in `packet` (the one read last, refused) when it began
 * there behind other heads; null when it began behind a body in its packet, where is not known; undefined when
 * it began at the start of the packet read last, or no head is under way.
 */
export const headStartOf = (socket: object, packet?: unknown): Buffer | null | undefined => {
  const state = heads.get(socket)
  if (state === undefined || !state.open) return undefined
  if (state.kept === undefined)
    return state.atStart || !state.inPacket || !Buffer.isBuffer(packet)
      ? undefined
      : startInPacket(state, packet)
  if (state.kept === null) return null
  return state.kept.length === 1 ? state.kept[0] : Buffer.concat(state.kept, state.size)
}
