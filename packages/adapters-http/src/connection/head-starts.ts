import type { Socket } from 'node:net'

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
}
const heads = new WeakMap<object, Heads>()
const MOST_KEPT = 4096 + 64

// Whether a request had a body: then bytes of it come between its head and the next, which begins where not known.
const hadBody = (req: NonNullable<Parser['incoming']>): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')

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
    if (before === null || end < 0 || hadBody(before)) return void (heads.kept = null)
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
  }
  heads.set(socket, state)
  parser[begin] = () => {
    state.open = true
    state.before = parser.incoming
    state.atStart = state.fresh
    state.fresh = false
    state.kept = undefined
    state.size = 0
    state.lineEnded = false
  }
  parser[execute] = (ret: unknown) => {
    afterPacket(ret)
    // node let go of its parser (a CONNECT's, an upgrade's), or refused the packet: nothing more to keep.
    if (parser.socket !== socket || ret instanceof Error) return
    const last = parser.incoming
    // A head ended since the message began: its request was made.
    if (state.open && last !== null && last !== state.before) state.open = false
    if (state.open) keep(state, parser)
    // The next packet begins a message of its own unless a head or a body is under way.
    state.fresh = !state.open && (last === null || last.complete)
  }
}

/**
 * The bytes the head under way on this connection began with, when it began in a packet before the one read
 * last (its request line, as far as it came); null when it began behind a body in its packet, where is not known;
 * undefined when no head began in an earlier packet (the refused packet holds its start, if any).
 */
export const headStartOf = (socket: object): Buffer | null | undefined => {
  const state = heads.get(socket)
  if (state === undefined || !state.open || state.kept === undefined) return undefined
  if (state.kept === null) return null
  return state.kept.length === 1 ? state.kept[0] : Buffer.concat(state.kept, state.size)
}
