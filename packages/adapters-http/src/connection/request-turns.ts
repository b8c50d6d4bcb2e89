import type { IncomingMessage, ServerResponse } from 'node:http'

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

// Per connection: the turn in which it last handed a request over, and that request's response when it came
// pipelined (node queued it behind an answer under way: it has no socket yet), else none.
type HandedOver = { turn: number; queued: ServerResponse | undefined }
const lastHandedOver = new WeakMap<object, HandedOver>()

/** Notes that node handed a request of this connection over (its `request`, `checkContinue` or `checkExpectation`). */
export const noteRequest = (req: IncomingMessage, res: ServerResponse): void => {
  const socket = req.socket
  const queued = res.socket === null ? res : undefined
  const last = lastHandedOver.get(socket)
  if (last === undefined) lastHandedOver.set(socket, { turn: currentTurn(), queued })
  else {
    last.turn = currentTurn()
    last.queued = queued
  }
}

/**
 * Whether this connection handed a request over in this turn of the event loop: then bytes node's parser
 * refuses now may share their packet with that request, whose line, not theirs, starts the packet. node reads a
 * packet in one go and answers a request as it comes, so one answered at once leaves no answer under way.
 */
export const handedOverThisTurn = (socket: object): boolean => lastHandedOver.get(socket)?.turn === turn

/**
 * The response of the last request this connection handed over, when that request came pipelined behind an
 * answer under way: the last answer node will write on it before what its parser reads next. Undefined when the
 * last request was given the connection at once (it is the answer under way, or was); once answered, it may
 * still be kept, until the connection hands another over or closes.
 */
export const lastQueuedResponseOf = (socket: object): ServerResponse | undefined =>
  lastHandedOver.get(socket)?.queued
