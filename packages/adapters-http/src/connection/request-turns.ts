import type { IncomingMessage } from 'node:http'

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

/** Notes that node handed a request of this connection over (its `request`, `checkContinue` or `checkExpectation`). */
export const noteRequest = (req: IncomingMessage): void => void lastHandedOver.set(req.socket, currentTurn())

/**
 * Whether this connection handed a request over in this turn of the event loop: then bytes node's parser
 * refuses now may share their packet with that request, whose line, not theirs, starts the packet. node reads a
 * packet in one go and answers a request as it comes, so one answered at once leaves no answer under way.
 */
export const handedOverThisTurn = (socket: object): boolean => lastHandedOver.get(socket) === turn
