import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'

// The turns of the event loop, counted only while requests come (one setImmediate a turn at most).
let turn = 0
let counting = false
const currentTurn = (): number => {
  if (!counting) {
    counting = true
    setImmediate(() => {
      turn++
      counting = false
    })
  }
  return turn
}

// The turn in which each connection last handed a request over.
const lastHandedOver = new WeakMap<object, number>()

// The start of the head under way on each connection, kept only while that head comes in more than one packet:
// its packets up to the end of its request line, or MOST_KEPT bytes (refused-head.ts reads no more of a line).
type HeadStart = { readonly parts: Array<Buffer>; size: number; lineEnded: boolean }
const headStarts = new WeakMap<object, HeadStart>()
const MOST_KEPT = 4096 + 64

/** Notes that node handed a request of this connection over (its `request`, `checkContinue` or `checkExpectation`). */
export const noteRequest = (req: IncomingMessage): void => {
  lastHandedOver.set(req.socket, currentTurn())
  // Its head ended: what was kept of it is no other request's start.
  headStarts.delete(req.socket)
}

/**
 * Whether this connection handed a request over in this turn of the event loop: then bytes node's parser
 * refuses now may share their packet with that request, whose line, not theirs, starts the packet. node reads a
 * packet in one go and answers a request as it comes, so one answered at once leaves no answer under way.
 */
export const handedOverThisTurn = (socket: object): boolean => lastHandedOver.get(socket) === turn

// A packet that ended inside a head: its start, or more of its request line.
const keepHeadPart = (socket: object, packet: Buffer): void => {
  const start = headStarts.get(socket)
  if (start === undefined) {
    // The head began in this packet, after the requests that ended in it (a head ends with an empty line; a body
    // of a length before it is read as part of it: refused-head.ts then finds no method it knows).
    const ended = packet.lastIndexOf('\r\n\r\n')
    const part = ended < 0 ? packet : packet.subarray(ended + 4)
    headStarts.set(socket, { parts: [part], size: part.length, lineEnded: part.includes('\r\n') })
    return
  }
  if (start.lineEnded || start.size > MOST_KEPT) return
  const last = start.parts.at(-1)!
  start.lineEnded = (last[last.length - 1] === 0x0d && packet[0] === 0x0a) || packet.includes('\r\n')
  start.parts.push(packet)
  start.size += packet.length
}

/**
 * The bytes the refused head of this connection began with, when it came in more than one packet (or never
 * ended): node's refusal carries only the packet it failed in, whose first line is not the request line
 * (a HEAD, taken for another method, was answered with a body). Undefined when its head came whole.
 */
export const headStartOf = (socket: object): Buffer | undefined => {
  const start = headStarts.get(socket)
  if (start === undefined) return undefined
  return start.parts.length === 1 ? start.parts[0] : Buffer.concat(start.parts, start.size)
}

type Parser = {
  headersCompleted(): boolean
  getCurrentBuffer(): Buffer
  [slot: number]: unknown
}
// The slot of node's parser holding its `onParserExecute`, called after each packet it read (HTTPParser.kOnExecute,
// not exported: found by the function's name; guard: private-api-guards.test.ts).
let executeSlot: number | undefined
const EXECUTE = 'bound onParserExecute'
/** Where node's parser of a connection keeps what it calls after each packet, if it is found. */
export const onExecuteSlotOf = (parser: object): number | undefined => {
  const slots = parser as Parser
  if (executeSlot !== undefined && (slots[executeSlot] as { name?: string })?.name === EXECUTE)
    return executeSlot
  for (let slot = 0; slot < 10; slot++)
    if ((slots[slot] as { name?: string } | undefined)?.name === EXECUTE) return (executeSlot = slot)
  return undefined
}

/**
 * Keeps the start of each head of this connection that comes in more than one packet (headStartOf): after each
 * packet node's parser read (its onParserExecute, a slot of the parser node fills for each connection), one
 * question to the parser, and a copy of the packet only when it ended inside a head.
 */
export const watchHeadStarts = (socket: Socket): void => {
  const parser = (socket as Socket & { parser?: Parser | null }).parser
  if (parser === undefined || parser === null) return
  const slot = onExecuteSlotOf(parser)
  if (slot === undefined) return
  const execute = parser[slot] as (ret: unknown) => void
  parser[slot] = (ret: unknown) => {
    if (typeof ret === 'number' && ret > 0 && !parser.headersCompleted())
      keepHeadPart(socket, parser.getCurrentBuffer())
    execute(ret)
  }
}
